// The parallel replay against the sequential reference: on traces with every
// pattern the matcher knows, for 1 to 5 replay processes, the synchronized times
// must be identical to the nanosecond and the statistics equal.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "generated_traces.hpp"
#include "sync/parallel_sync.hpp"
#include "sync/trace_sync.hpp"

using namespace mpidle;
using model::CollectiveKind;
using model::TraceRecord;
using model::TraceRole;

namespace {

using test::generated;
using test::TraceBuilder;

void same_result(model::Trace reference, int processes) {
  model::Trace parallel = reference;
  const auto expected = sync::synchronize_trace(reference, sync::ClcParams{.min_latency_ns = -1});
  const auto got =
      sync::synchronize_trace_by_replay(parallel, sync::ClcParams{.min_latency_ns = -1}, processes);
  INFO(processes << " replay processes, " << reference.ranks.size() << " ranks");
  for (std::size_t r = 0; r < reference.ranks.size(); ++r) {
    INFO("rank " << r);
    REQUIRE(parallel.ranks[r].synced.size() == reference.ranks[r].synced.size());
    std::size_t first_difference = reference.ranks[r].synced.size();
    for (std::size_t e = 0; e < reference.ranks[r].synced.size(); ++e) {
      if (parallel.ranks[r].synced[e] != reference.ranks[r].synced[e]) {
        first_difference = e;
        break;
      }
    }
    CHECK(first_difference == reference.ranks[r].synced.size());
  }
  CHECK(got.params.min_latency_ns == expected.params.min_latency_ns);
  CHECK(got.params.raw_clocks == expected.params.raw_clocks);
  CHECK(got.min_gap_raw_ns == expected.min_gap_raw_ns);
  CHECK(got.min_gap_corrected_ns == expected.min_gap_corrected_ns);
  CHECK(got.violations_with_offsets == expected.violations_with_offsets);
  CHECK(got.clock_reason == expected.clock_reason);
  CHECK(got.latency_reason == expected.latency_reason);
  CHECK(got.violations_raw == expected.violations_raw);
  CHECK(got.clc.violations_before == expected.clc.violations_before);
  CHECK(got.clc.violations_after == expected.clc.violations_after);
  CHECK(got.clc.events_moved == expected.clc.events_moved);
  CHECK(got.clc.max_shift_ns == expected.clc.max_shift_ns);
  CHECK(got.clc.mean_shift_ns == Approx(expected.clc.mean_shift_ns));
  CHECK(got.clc.interval_change_mean_ns == Approx(expected.clc.interval_change_mean_ns));
  CHECK(got.clc.unresolved == expected.clc.unresolved);
  CHECK(got.messages == expected.messages);
  CHECK(got.unmatched_sends == expected.unmatched_sends);
  CHECK(got.unmatched_receives == expected.unmatched_receives);
  CHECK(got.cancelled == expected.cancelled);
  REQUIRE(got.models.size() == expected.models.size());
}

}  // namespace

TEST_CASE("parallel replay: identical to the sequential clock on every pattern, any process count",
          "[sync]") {
  for (const std::uint32_t ranks : {2u, 3u, 4u, 5u}) {
    const auto trace = generated(ranks, 17 + ranks, 60);
    // The generated traces must give the clock something to repair.
    model::Trace probe = trace;
    const auto reference = sync::synchronize_trace(probe, sync::ClcParams{.min_latency_ns = -1});
    INFO(ranks << " ranks");
    // Either the offsets left violations, or they made more than the raw clocks
    // had and were rejected (both paths must then agree on that too).
    CHECK(reference.clc.violations_before + reference.violations_with_offsets > 0);
    CHECK(reference.clc.events_moved > 0);
    CHECK(reference.messages > 0);
    CHECK(reference.cancelled > 0);
    CHECK(reference.unmatched_sends > 0);
    for (int processes = 1; processes <= static_cast<int>(ranks); ++processes) {
      same_result(trace, processes);
    }
  }
}

TEST_CASE(
    "parallel replay: identical on 16 and 33 ranks, whose collectives take trees of 4-6 levels",
    "[sync]") {
  // 33 members: the top has 6 children, and a subtree ends early; the reversed
  // communicator's scans number the tree against the world ranks.
  for (const std::uint32_t ranks : {16u, 33u}) {
    const auto trace = generated(ranks, 5 + ranks, 24);
    for (const int processes : {1, 3, 7, static_cast<int>(ranks)}) same_result(trace, processes);
  }
}

TEST_CASE("parallel replay: a collective's answer is at most 2 log2(N) tree hops away", "[sync]") {
  for (const std::uint32_t ranks : {2u, 5u, 16u, 33u}) {
    auto trace = generated(ranks, 9 + ranks, 12);
    std::uint64_t rounds = 0;
    sync::synchronize_trace_by_replay(trace, sync::ClcParams{.min_latency_ns = -1},
                                      static_cast<int>(std::min<std::uint32_t>(ranks, 4)), nullptr,
                                      nullptr, &rounds);
    int levels = 0;
    while ((1u << levels) < ranks) ++levels;
    INFO(ranks << " ranks");
    CHECK(rounds >= static_cast<std::uint64_t>(levels));
    CHECK(rounds <= static_cast<std::uint64_t>(2 * levels));
  }
}

TEST_CASE(
    "parallel replay: a member that enters after another left, through a message, waits for "
    "nothing more",
    "[sync]") {
  // A broadcast from rank 3: rank 1 leaves it and sends to rank 5, which enters it
  // only then. Then a scan: order 0 leaves and sends to order 5 likewise. A tree
  // that held the root's time (or the prefix) until every member had come would
  // make a cycle the sequential replay does not have.
  TraceBuilder b(6, 3);
  auto collective = [&](std::uint32_t r, std::int64_t enter, std::int64_t exit,
                        std::uint32_t instance, CollectiveKind kind, std::int32_t root) {
    auto& rec = b.add(r, TraceRole::collective, enter, exit);
    rec.comm = 0;
    rec.sequence = instance;
    rec.collective_kind = static_cast<std::uint8_t>(kind);
    rec.root = root;
  };
  for (std::uint32_t r = 0; r < 6; ++r) {
    if (r == 5) {
      b.add(5, TraceRole::recv, 1000, 2000, 1, 4);
      collective(5, 2100, 2200, 0, CollectiveKind::one_to_n, 3);
    } else {
      collective(r, 1000, r == 3 ? 1100 : 1500, 0, CollectiveKind::one_to_n, 3);
      if (r == 1) b.add(1, TraceRole::send, 1600, 1650, 5, 4);
    }
  }
  for (std::uint32_t r = 0; r < 6; ++r) {
    const std::int64_t start = 3000;
    if (r == 5) {
      b.add(5, TraceRole::recv, start, start + 800, 0, 6);
      collective(5, start + 900, start + 1000, 1, CollectiveKind::scan, 5);
    } else {
      collective(r, start, start + 400, 1, CollectiveKind::scan, static_cast<std::int32_t>(r));
      if (r == 0) b.add(0, TraceRole::send, start + 500, start + 550, 5, 6);
    }
  }
  const auto trace = b.finish();
  model::Trace reference = trace;
  const auto expected = sync::synchronize_trace(reference, sync::ClcParams{.min_latency_ns = -1});
  CHECK(expected.clc.unresolved == 0);
  for (int processes = 1; processes <= 6; ++processes) same_result(trace, processes);
}

TEST_CASE("parallel replay: a cycle in an inconsistent trace is broken as sequentially", "[sync]") {
  // Both ranks receive before they send: no real run can do this, a damaged trace can.
  TraceBuilder b(3, 5);
  for (std::uint32_t r = 0; r < 2; ++r) {
    b.add(r, TraceRole::recv, 1000 + 10 * r, 5000, static_cast<std::int32_t>(1 - r));
    b.add(r, TraceRole::send, 6000, 6100, static_cast<std::int32_t>(1 - r));
  }
  b.add(2, TraceRole::recv, 100, 200, 5);  // from a rank that is not in the trace
  auto trace = b.finish();
  model::Trace reference = trace;
  const auto expected = sync::synchronize_trace(reference, sync::ClcParams{.min_latency_ns = -1});
  CHECK(expected.clc.unresolved > 0);
  for (int processes = 1; processes <= 3; ++processes) same_result(trace, processes);
}
