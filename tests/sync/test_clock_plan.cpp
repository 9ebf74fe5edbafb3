// The clock plan on traces whose true times are known: ranks on one clock with
// noisy offset measurements, offsets that would create violations, real offsets
// between clocks, and a latency measured far too long on a busy node. The
// sequential synchronization and the parallel replay must decide alike.
#include <catch2/catch.hpp>

#include "sync/clock_plan.hpp"
#include "sync/parallel_sync.hpp"
#include "sync/trace_sync.hpp"

using namespace mpidle;
using model::TraceRecord;
using model::TraceRole;

namespace {

constexpr std::int64_t kLatency = 1'000;  // the true one-way latency: 1 µs

// Rank 0 sends to rank 1, which answers; `steps` times, 50 µs apart, on one
// true timeline. Rank 1's clock reads `clock_offset` more than rank 0's.
model::Trace ping_pong(int steps, std::int64_t clock_offset) {
  model::Trace t;
  t.functions = {"MPI_Send", "MPI_Recv"};
  t.callsites = {model::Callsite{}};
  t.ranks.resize(2);
  t.ranks[0].rank = 0;
  t.ranks[1].rank = 1;
  auto add = [&](int rank, TraceRole role, std::int64_t enter, std::int64_t exit) {
    TraceRecord r;
    r.role = role;
    r.function = role == TraceRole::send ? 0 : 1;
    r.peer = 1 - rank;
    r.tag = 1;
    r.bytes = 8;
    r.enter_ns = enter + (rank == 1 ? clock_offset : 0);
    r.exit_ns = exit + (rank == 1 ? clock_offset : 0);
    t.ranks[static_cast<std::size_t>(rank)].records.push_back(r);
  };
  for (int i = 0; i < steps; ++i) {
    const std::int64_t t0 = 1'000'000 + i * 50'000;
    add(0, TraceRole::send, t0, t0 + 200);
    add(1, TraceRole::recv, t0 - 5'000, t0 + kLatency + 300);  // waits for the message
    add(1, TraceRole::send, t0 + 2'000, t0 + 2'200);
    add(0, TraceRole::recv, t0 + 400, t0 + 2'000 + kLatency + 300);
  }
  t.min_latency_ns = 500;  // half the shortest round trip measured
  return t;
}

void set_measurements(model::Trace& t, model::ClockMeasurement init,
                      model::ClockMeasurement final) {
  t.ranks[1].init = init;
  t.ranks[1].final = final;
}

// Synchronizes a copy sequentially and by a 2-process replay; both must agree.
sync::TraceSyncResult synchronized(model::Trace& t) {
  model::Trace parallel = t;
  const auto sequential = sync::synchronize_trace(t, sync::ClcParams{.min_latency_ns = -1});
  const auto replayed =
      sync::synchronize_trace_by_replay(parallel, sync::ClcParams{.min_latency_ns = -1}, 2);
  CHECK(replayed.params.raw_clocks == sequential.params.raw_clocks);
  CHECK(replayed.params.min_latency_ns == sequential.params.min_latency_ns);
  CHECK(replayed.clock_reason == sequential.clock_reason);
  for (std::size_t r = 0; r < t.ranks.size(); ++r)
    CHECK(parallel.ranks[r].synced == t.ranks[r].synced);
  return sequential;
}

model::LargeArray<std::int64_t> raw_times(const model::RankTrace& r) {
  const auto times = sync::raw_rank_times(r);
  return {times.begin(), times.end()};
}

}  // namespace

TEST_CASE("clock plan: one clock and measurements within their round trip keep the raw times",
          "[sync]") {
  // A busy node: offsets of 1.5 ms and 0.9 ms measured with round trips of 4 ms.
  auto t = ping_pong(20, 0);
  set_measurements(t, {1'500'000, 4'000'000, 0}, {-900'000, 4'000'000, 1'000'000'000});
  CHECK(sync::reads_reference_clock(t.ranks[1]));
  const auto r = synchronized(t);
  CHECK(r.violations_raw == 0);
  CHECK(r.clc.violations_before == 0);
  CHECK(r.clc.events_moved == 0);
  CHECK(t.ranks[1].synced == raw_times(t.ranks[1]));
}

TEST_CASE("clock plan: offsets that make violations the raw clocks did not have are rejected",
          "[sync]") {
  // One clock, but the measurements exclude 0: 0.5 µs at the start and, after a
  // delayed final reading, 40 µs at the end (round trips 0.2 µs), a false drift.
  auto t = ping_pong(20, 0);
  set_measurements(t, {500, 200, 0}, {40'000, 200, 1'000'000});
  CHECK_FALSE(sync::reads_reference_clock(t.ranks[1]));
  const auto r = synchronized(t);
  CHECK(r.params.raw_clocks);
  CHECK(r.violations_with_offsets > 0);
  CHECK(r.violations_raw == 0);
  CHECK(r.clc.violations_before == 0);
  CHECK(r.clc.events_moved == 0);
  CHECK(r.clock_reason.find("raw clocks kept") != std::string::npos);
  CHECK(t.ranks[1].synced == raw_times(t.ranks[1]));
}

TEST_CASE("clock plan: real offsets between clocks are corrected", "[sync]") {
  // Rank 1's clock is 5 ms ahead, measured to within 0.5 µs.
  auto t = ping_pong(20, 5'000'000);
  set_measurements(t, {5'000'100, 1'000, 0}, {5'000'100, 1'000, 1'000'000'000});
  const auto r = synchronized(t);
  CHECK_FALSE(r.params.raw_clocks);
  CHECK(r.violations_raw > 0);
  CHECK(r.clc.violations_before == 0);
  CHECK(r.clc.violations_after == 0);
  // Rank 1's times are back on rank 0's clock, to within the measurement's error.
  const auto raw = raw_times(t.ranks[1]);
  for (std::size_t e = 0; e < raw.size(); ++e) {
    CHECK(std::abs(t.ranks[1].synced[e] - (raw[e] - 5'000'000)) <= 200);
  }
}

TEST_CASE("clock plan: a latency longer than the shortest message is lowered to it", "[sync]") {
  // Every round trip measured on a busy node took 5.5 ms: a "latency" of 2.74 ms,
  // while the messages took 1.3 µs from send to receive exit.
  auto t = ping_pong(20, 0);
  t.min_latency_ns = 2'740'000;
  const auto r = synchronized(t);
  CHECK(r.measured_min_latency_ns == 2'740'000);
  CHECK(r.params.min_latency_ns == kLatency + 300);
  CHECK(r.latency_reason.find("shortest matched message or collective") != std::string::npos);
  CHECK(r.clc.events_moved == 0);
  CHECK(r.clc.max_shift_ns == 0);
  // Asked for explicitly, the latency is kept (and the clock moves events).
  model::Trace asked = ping_pong(20, 0);
  const auto kept = sync::synchronize_trace(asked, sync::ClcParams{.min_latency_ns = 2'740'000});
  CHECK(kept.params.min_latency_ns == 2'740'000);
  CHECK(kept.clc.events_moved > 0);
}

TEST_CASE("clock plan: a latency longer than the shortest collective is lowered to it", "[sync]") {
  // Only Allreduces: rank 1 arrives 10 ms after rank 0 each time and both leave
  // 2 µs after it. A busy node's offset measurement gave a "latency" of 3.6 ms; kept,
  // the controlled logical clock would push every exit 3.6 ms past the last
  // arrival and, amortizing that, move rank 0's enters and its wait (a loaded run
  // made 0.199 s of the 0.275 s the program measured).
  model::Trace t;
  t.functions = {"MPI_Allreduce"};
  t.callsites = {model::Callsite{}};
  t.ranks.resize(2);
  for (std::int32_t rank = 0; rank < 2; ++rank) {
    auto& r = t.ranks[static_cast<std::size_t>(rank)];
    r.rank = rank;
    for (std::uint32_t i = 0; i < 20; ++i) {
      const std::int64_t last = 1'000'000 + i * 20'000'000 + 10'000'000;
      TraceRecord rec;
      rec.role = TraceRole::collective;
      rec.function = 0;
      rec.comm = 0;
      rec.sequence = i;
      rec.collective_kind = static_cast<std::uint8_t>(model::CollectiveKind::n_to_n);
      rec.enter_ns = rank == 0 ? last - 10'000'000 : last;
      rec.exit_ns = last + 2'000 + rank * 100;
      r.records.push_back(rec);
    }
  }
  t.min_latency_ns = 3'647'443;
  const auto r = synchronized(t);
  CHECK(r.measured_min_latency_ns == 3'647'443);
  CHECK(r.params.min_latency_ns == 2'000);
  CHECK(r.latency_reason.find("shortest matched message or collective") != std::string::npos);
  CHECK(r.clc.events_moved == 0);
  CHECK(t.ranks[0].synced == raw_times(t.ranks[0]));
}
