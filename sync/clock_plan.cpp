#include "clock_plan.hpp"

#include <climits>
#include <cstdio>

namespace mpidle::sync {
namespace {

std::string duration(std::int64_t ns) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3g s", static_cast<double>(ns) * 1e-9);
  return text;
}

}  // namespace

ClockPlan plan_clocks(const TraceSyncResult& done, bool latency_given) {
  ClockPlan plan{done.params.raw_clocks, done.params.min_latency_ns};
  if (!plan.raw_clocks && done.clc.violations_before > done.violations_raw) plan.raw_clocks = true;
  const std::int64_t gap = plan.raw_clocks ? done.min_gap_raw_ns : done.min_gap_corrected_ns;
  if (!latency_given && gap != INT64_MAX && gap < plan.min_latency_ns) plan.min_latency_ns = gap;
  return plan;
}

TraceSyncResult synchronize_with_plan(
    const std::function<TraceSyncResult(const ClcParams&)>& synchronize, ClcParams params,
    std::int64_t measured_min_latency_ns) {
  const bool latency_given = params.min_latency_ns >= 0;
  if (!latency_given) params.min_latency_ns = measured_min_latency_ns;
  const std::int64_t measured = params.min_latency_ns;
  TraceSyncResult result = synchronize(params);
  const ClockPlan plan = plan_clocks(result, latency_given);
  const std::uint64_t with_offsets = result.clc.violations_before;
  const bool rejected = plan.raw_clocks && !params.raw_clocks;
  if (plan != ClockPlan{params.raw_clocks, params.min_latency_ns}) {
    params.raw_clocks = plan.raw_clocks;
    params.min_latency_ns = plan.min_latency_ns;
    result = synchronize(params);
  }
  result.measured_min_latency_ns = measured;
  if (rejected) {
    result.violations_with_offsets = with_offsets;
    result.clock_reason = "the measured offsets gave " + std::to_string(with_offsets) +
                          " clock-condition violations, the raw clocks " +
                          std::to_string(result.violations_raw) + ": raw clocks kept";
  } else if (params.raw_clocks) {
    result.clock_reason = "raw clocks, as asked";
  } else {
    result.clock_reason =
        "offset interpolation (ranks whose measurements allow rank 0's clock "
        "keep their raw times)";
  }
  result.latency_reason = params.min_latency_ns < measured
                              ? "the measured " + duration(measured) +
                                    " is longer than the shortest matched message or collective (" +
                                    duration(params.min_latency_ns) + "): that time is used"
                              : (latency_given ? "as asked" : "as measured");
  return result;
}

}  // namespace mpidle::sync
