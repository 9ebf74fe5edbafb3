#pragma once
// Clock offsets by Cristian's method, organized as a binomial tree: in round k
// every rank r with r mod 2^(k+1) = 2^k is measured by its parent r − 2^k (≥ 10
// ping-pongs, more while round trips stay long; shortest kept), so all ranks are
// done in ceil(log2 P)
// rounds. Each rank learns its offset to its parent; rank 0 composes the path to
// itself after the trace merge.

#include <mpi.h>

#include "model/trace_file.hpp"
#include "trace_clock.hpp"

namespace mpidle::profiler {

inline constexpr int kOffsetPingPongs = 12;

// Collective over `comm`. Rank 0 gets a zero measurement.
model::ClockMeasurement measure_offset_to_parent(MPI_Comm comm, const TraceClock& clock);

// Parent of a rank in the measurement tree (its rank with the lowest set bit cleared).
inline int offset_tree_parent(int rank) {
  return rank & (rank - 1);
}

}  // namespace mpidle::profiler
