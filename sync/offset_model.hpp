#pragma once
// Linear clock correction from two offset measurements (at start and at end):
// offset(t) = init_offset + drift × (t − init_time). Converts a rank's local
// timestamps to the reference (rank 0) timeline.

#include <algorithm>
#include <cstdint>

#include "clock_offset.hpp"

namespace mpidle::sync {

struct OffsetModel {
  std::int64_t init_time_ns = 0;  // local time of the first measurement
  double init_offset_ns = 0;      // local − reference at init_time
  double drift = 0;               // d(offset)/d(local time), dimensionless

  // Built from the local-time midpoints and offsets of two measurements; with
  // only one (or two at the same time) the drift is zero.
  static OffsetModel from(const OffsetEstimate& init, const OffsetEstimate& final);

  double offset_at(std::int64_t local_ns) const {
    return init_offset_ns + drift * static_cast<double>(local_ns - init_time_ns);
  }
  // The offset is bounded by ±2^60 ns (model::kMaxTraceTimeNs): measurements a
  // corrupted trace holds may give any drift, and the result must stay an int64.
  std::int64_t to_reference(std::int64_t local_ns) const {
    const double offset = std::clamp(offset_at(local_ns), -0x1p60, 0x1p60);
    return local_ns - static_cast<std::int64_t>(offset + (offset >= 0 ? 0.5 : -0.5));
  }
};

}  // namespace mpidle::sync
