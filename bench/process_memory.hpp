#pragma once
// The benchmarks' memory figures, from /proc/self/status (Linux).

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mpidle::bench {

// A /proc/self/status field in MiB ("VmHWM:" the peak, "VmRSS:" now); 0 if absent.
inline double status_mib(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kib = 0;
  const std::size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, field, n) == 0) kib = std::atof(line + n);
  }
  std::fclose(f);
  return kib / 1024;
}

// Starts VmHWM again from the present resident size (Linux 4.0 and later), so that
// one process can measure the peaks of several runs one after the other.
inline void reset_peak() {
  if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}

}  // namespace mpidle::bench
