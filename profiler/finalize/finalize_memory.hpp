#pragma once
// How much memory MPI_Finalize's own work added on this rank at its peak: the
// trace finalize holds every record of the rank (in the heap, or out of core in
// file pages), which the tables' fixed size (memory_bytes) does not show. Measured from the
// resident set, so it reads nothing of the application: the growth over the resident set at the
// start of the finalize, sampled between stages, and the process' high-water mark
// when the finalize raised it (catching peaks inside a stage). A lower bound when
// the finalize reuses memory the application freed.

#include <cstdint>

namespace mpidle::profiler {

class FinalizeMemory {
 public:
  FinalizeMemory();  // the start of the finalize
  void sample();     // between stages: not on any per-call path
  std::uint64_t peak_added_bytes();
  // The part of it in anonymous memory (RssAnon), which the kernel cannot reclaim
  // without swap; an out-of-core finalize keeps its trace in file pages instead.
  // Sampled only: the arrays that matter live across stages.
  std::uint64_t peak_added_anonymous_bytes();

 private:
  std::uint64_t m_start_rss = 0, m_start_high_water = 0, m_largest_rss = 0;
  std::uint64_t m_start_anonymous = 0, m_largest_anonymous = 0;
};

}  // namespace mpidle::profiler
