#pragma once
// The allocator of a trace's per-record arrays (records, synchronized times,
// counters, the replay's corrected times). Blocks come from operator new, as a
// std::vector's would (no huge-page hint: the finalize's arrays asking for huge
// pages cost the next traced run's chunk faults compaction). Once a process has
// said where (back_large_arrays_by_files), blocks of the
// given size and larger are unlinked files mapped shared instead: the kernel pages
// them in as the replay's cursors walk them and writes them back and reclaims them
// under memory pressure, so a rank whose trace exceeds its memory cap finalizes
// out of core rather than holding its whole trace in memory it cannot give back.

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace mpidle::model {

// From now on, blocks of `min_bytes` or more are files in `directory`; an empty
// directory turns that off. Blocks already made keep their kind until freed.
void back_large_arrays_by_files(const std::string& directory, std::size_t min_bytes);

struct LargeArrayStats {
  std::uint64_t file_blocks = 0;       // mapped from files now
  std::uint64_t file_bytes = 0;        // their size
  std::uint64_t file_blocks_ever = 0;  // since the process started
  std::uint64_t failures = 0;          // file blocks that fell back to memory
  std::string last_failure;            // why the last one did
};
LargeArrayStats large_array_stats();

// Throws std::bad_alloc when neither a file nor memory can hold `bytes`.
void* allocate_large_array(std::size_t bytes);
void free_large_array(void* block, std::size_t bytes);  // `bytes`: as allocated
bool is_file_backed(const void* block);

template <typename T>
struct LargeArrayAllocator {
  using value_type = T;
  LargeArrayAllocator() = default;
  template <typename U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(allocate_large_array(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) { free_large_array(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const LargeArrayAllocator<U>&) const {
    return true;
  }
};

template <typename T>
using LargeArray = std::vector<T, LargeArrayAllocator<T>>;

}  // namespace mpidle::model
