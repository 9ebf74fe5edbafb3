#include "profiler/finalize/finalize_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace mpidle::profiler {
namespace {

// Resident bytes now, all and anonymous (/proc/self/statm, in pages: resident
// less shared, i.e. file and shmem pages, is RssAnon); zeros when unreadable.
struct Resident {
  std::uint64_t all = 0, anonymous = 0;
};
Resident resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return {};
  unsigned long long size = 0, resident = 0, shared = 0;
  const bool read = std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared) == 3;
  std::fclose(f);
  const long page = sysconf(_SC_PAGESIZE);
  if (!read || page <= 0) return {};
  const auto bytes = static_cast<std::uint64_t>(page);
  return {resident * bytes, (resident > shared ? resident - shared : 0) * bytes};
}

// The process' peak resident bytes so far (Linux reports KiB).
std::uint64_t high_water_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace

FinalizeMemory::FinalizeMemory() : m_start_high_water(high_water_bytes()) {
  const Resident now = resident_bytes();
  m_start_rss = m_largest_rss = now.all;
  m_start_anonymous = m_largest_anonymous = now.anonymous;
}

void FinalizeMemory::sample() {
  const Resident now = resident_bytes();
  m_largest_rss = std::max(m_largest_rss, now.all);
  m_largest_anonymous = std::max(m_largest_anonymous, now.anonymous);
}

std::uint64_t FinalizeMemory::peak_added_anonymous_bytes() {
  sample();
  return m_largest_anonymous > m_start_anonymous ? m_largest_anonymous - m_start_anonymous : 0;
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
