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

// Resident anonymous bytes now (RssAnon in /proc/self/status, in KiB); 0 when unreadable.
std::uint64_t anonymous_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (std::sscanf(line, "RssAnon: %llu", &kib) == 1) break;
  }
  std::fclose(f);
  return static_cast<std::uint64_t>(kib) * 1024;
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
      m_largest_rss(m_start_rss),
      m_start_anonymous(anonymous_bytes()),
      m_largest_anonymous(m_start_anonymous) {}

void FinalizeMemory::sample() {
  m_largest_rss = std::max(m_largest_rss, resident_bytes());
  m_largest_anonymous = std::max(m_largest_anonymous, anonymous_bytes());
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
