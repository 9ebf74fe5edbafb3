#pragma once
// The controlled logical clock (Rabenseifner; extended to collectives by Becker,
// Rabenseifner, Wolf, EuroPVM/MPI 2007). Given timestamps already corrected by
// linear offset interpolation, it restores the clock condition — no event
// precedes one of its causes — while keeping each rank's local intervals:
//  - forward amortization: an event that would precede a cause + the minimum
//    latency moves to that point; the following local events keep their
//    spacing scaled by γ (< 1, so the shift decays) and advance at least δ;
//  - backward amortization: the jump is spread over the preceding interval with
//    a small slope, never moving a send past its receive − the minimum latency.
// Events only ever move later.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "event_graph.hpp"

namespace mpidle::sync {

struct ClcParams {
  double gamma = 0.99999;
  std::int64_t delta_ns = 1;
  double backward_slope = 0.01;
  std::int64_t min_latency_ns = 0;
  // Start from the raw local clocks instead of the offset-corrected ones (the
  // offsets made the clock condition worse: sync/clock_plan.hpp).
  bool raw_clocks = false;
};

struct ClcStats {
  std::uint64_t violations_before = 0;  // events that preceded one of their causes
  std::uint64_t violations_after = 0;
  std::uint64_t events_moved = 0;
  std::int64_t max_shift_ns = 0;
  double mean_shift_ns = 0;            // over all events
  double interval_change_mean_ns = 0;  // mean |new − old| length of consecutive local intervals
  std::uint64_t unresolved = 0;        // dependencies in a cycle (an inconsistent trace), ignored
};

using RankTimes = std::vector<std::vector<std::int64_t>>;

// "No cause yet" and "no effect": far from any timestamp, and far from overflowing
// when a latency is added or subtracted.
inline constexpr std::int64_t kClcNever = std::numeric_limits<std::int64_t>::min() / 4;
inline constexpr std::int64_t kClcUnbounded = std::numeric_limits<std::int64_t>::max() / 4;

// Forward amortization's local step: where the local clock alone puts an event
// after its predecessor (interval scaled by γ, advancing at least δ).
inline std::int64_t clc_local_time(std::int64_t raw, std::int64_t raw_previous,
                                   std::int64_t lc_previous, const ClcParams& p) {
  const std::int64_t interval = raw - raw_previous;
  std::int64_t advance = static_cast<std::int64_t>(p.gamma * static_cast<double>(interval));
  if (interval > 0) advance = std::max(advance, p.delta_ns);
  return std::max(raw, lc_previous + advance);
}

// How late a rank's causes may become: the events that have effects on other
// ranks (ascending) and their latest times; every other event is unbounded.
struct CauseBounds {
  std::span<const std::uint64_t> events;
  std::span<const std::int64_t> latest;
};

// Backward amortization of one rank's events (in place): each forward jump (event,
// size > 0, by event) is spread over the events before it with slope ≤ `slope`,
// never moving a cause past its bound. `shift`: scratch space.
void amortize_rank_backward(std::span<const std::pair<std::uint64_t, std::int64_t>> jumps,
                            CauseBounds bounds, double slope, std::span<std::int64_t> lc,
                            std::vector<std::int64_t>& shift);

// Events whose time is earlier than one of their causes (a receive before its send).
std::uint64_t count_violations(const EventGraph& graph, const RankTimes& times);

// Rewrites `times` (one vector per rank, each non-decreasing, sized as in the graph).
ClcStats synchronize(const EventGraph& graph, RankTimes& times, const ClcParams& params);

// synchronize() with the graph's rows indexed by std::uint32_t (what it uses while
// the graph has under 2^31 nodes) or std::uint64_t (beyond): both give the same
// result on any graph that fits either.
template <typename Index>
ClcStats synchronize_indexed(const EventGraph& graph, RankTimes& times, const ClcParams& params);

}  // namespace mpidle::sync
