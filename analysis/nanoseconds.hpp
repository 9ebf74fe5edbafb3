#pragma once
// Model seconds as trace nanoseconds, as the prediction engines keep time.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace mpidle::analysis {

inline std::int64_t to_ns(double seconds) {
  return std::llround(std::max(0.0, seconds) * 1e9);
}

}  // namespace mpidle::analysis
