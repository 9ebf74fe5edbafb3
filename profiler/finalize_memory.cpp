#include "finalize_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace mpidle::profiler {
namespace {

// Resident bytes now (/proc/self/statm, in pages); 0 when unreadable.
std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const bool read = std::fscanf(f, "%llu %llu", &size, &resident) == 2;
  std::fclose(f);
  const long page = sysconf(_SC_PAGESIZE);
  return read && page > 0 ? resident * static_cast<std::uint64_t>(page) : 0;
}

// The process' peak resident bytes so far (Linux reports KiB).
std::uint64_t high_water_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace

FinalizeMemory::FinalizeMemory()
    : m_start_rss(resident_bytes()),
      m_start_high_water(high_water_bytes()),
      m_largest_rss(m_start_rss) {}

void FinalizeMemory::sample() {
  m_largest_rss = std::max(m_largest_rss, resident_bytes());
}

std::uint64_t FinalizeMemory::peak_added_bytes() {
  sample();
  std::uint64_t peak = m_largest_rss;
  // A high-water mark above the one at the start was set during the finalize.
  if (const std::uint64_t high = high_water_bytes(); high > m_start_high_water) {
    peak = std::max(peak, high);
  }
  return peak > m_start_rss ? peak - m_start_rss : 0;
}

}  // namespace mpidle::profiler
