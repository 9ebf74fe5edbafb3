#pragma once
// Checks a synchronization against the trace it synchronized, and decides whether
// to do it again differently. Offsets and latencies measured on a busy node can be
// wrong by milliseconds; the trace's own messages tell:
//  - offsets that make more clock-condition violations than the raw clocks had
//    are rejected, and the raw clocks kept (ranks on one host read one clock);
//  - a minimum latency longer than the shortest matched message took, or a
//    collective from its last arrival to a member's exit, is not a latency: the
//    controlled logical clock then uses that time instead.
// The sequential synchronization and every parallel replay decide the same way,
// so that their results stay equal.

#include <functional>

#include "trace_sync.hpp"

namespace mpidle::sync {

struct ClockPlan {
  bool raw_clocks = false;
  std::int64_t min_latency_ns = 0;
  bool operator==(const ClockPlan&) const = default;
};

// What a synchronization's statistics call for (the same as it used when nothing
// needs to change). `latency_given`: the latency was asked for, not measured, and
// is kept.
ClockPlan plan_clocks(const TraceSyncResult& done, bool latency_given = false);

// Runs `synchronize` (one whole synchronization) with `params`, then once more
// when plan_clocks asks for something else; fills in the result what was decided
// and why. params.min_latency_ns < 0: the latency measured by the profiler
// (`measured_min_latency_ns`), checked against the trace; else the one asked for,
// kept.
TraceSyncResult synchronize_with_plan(
    const std::function<TraceSyncResult(const ClcParams&)>& synchronize, ClcParams params,
    std::int64_t measured_min_latency_ns);

}  // namespace mpidle::sync
