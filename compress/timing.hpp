#pragma once
// Timing aggregate of a summary symbol: every occurrence's duration.

#include <algorithm>
#include <cstdint>
#include <limits>

namespace mpidle::compress {

struct Timing {
  std::uint64_t count = 0;
  std::int64_t total_ns = 0;
  std::int64_t min_ns = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_ns = 0;

  void add(std::int64_t ns) {
    ++count;
    total_ns += ns;
    min_ns = std::min(min_ns, ns);
    max_ns = std::max(max_ns, ns);
  }
  void merge(const Timing& other) {
    count += other.count;
    total_ns += other.total_ns;
    min_ns = std::min(min_ns, other.min_ns);
    max_ns = std::max(max_ns, other.max_ns);
  }
  double mean_ns() const { return count ? static_cast<double>(total_ns) / count : 0.0; }
  std::int64_t min_or_zero() const { return count ? min_ns : 0; }
};

}  // namespace mpidle::compress
