// Root causes of waiting (analysis/delay_analysis) on hand-built synchronized
// traces whose delays are known by construction: a compute imbalance, a chain in
// which one rank's late compute makes a second late for a third, and a large
// transfer that makes its sender late for its next partner.
#include <catch2/catch.hpp>

#include "analysis/delay_analysis.hpp"
#include "synced_records.hpp"

using namespace mpidle;
using analysis::DelayKind;
using model::CollectiveKind;
using model::TraceRole;

namespace {

enum Fn : std::uint32_t { Send, Recv, Allreduce, Barrier };
constexpr std::int64_t kUs = 1000, kMs = 1'000'000;

model::Trace ranks(int n) {
  model::Trace t;
  t.functions = {"MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Barrier"};
  t.callsites.resize(16);
  t.ranks.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) t.ranks[static_cast<std::size_t>(r)].rank = r;
  // Every rank leaves a Barrier together at 0: the first synchronization.
  std::vector<std::int64_t> enters(static_cast<std::size_t>(n), -kUs);
  test::add_collective(t, Barrier, CollectiveKind::n_to_n, enters, 0);
  return t;
}

model::TraceRecord& add(model::Trace& t, int rank, Fn fn, TraceRole role, std::int64_t enter,
                        std::int64_t exit, std::int32_t peer = -1, std::uint64_t bytes = 0) {
  return test::add_synced(t, rank, fn, role, enter, exit, peer, bytes);
}

// A collective of every rank on communicator 1, its `instance`-th there.
void collective(model::Trace& t, Fn fn, std::uint32_t instance,
                const std::vector<std::int64_t>& enters, std::int64_t exit) {
  for (std::size_t r = 0; r < enters.size(); ++r) {
    auto& rec = add(t, static_cast<int>(r), fn, TraceRole::collective, enters[r], exit);
    rec.comm = 1;
    rec.sequence = instance;
    rec.collective_kind = static_cast<std::uint8_t>(CollectiveKind::n_to_n);
  }
}

analysis::DelayAnalysis delays_of(const model::Trace& t) {
  return analysis::analyze_delays(t, sync::match_trace(t));
}

const analysis::WaitRootCauses& causes_at(const analysis::DelayAnalysis& d, std::uint32_t site) {
  for (const auto& w : d.waits) {
    if (w.callsite == site) return w;
  }
  FAIL("no waiting at callsite " << site);
  return d.waits.front();
}

const analysis::DelayCosts* delay_of(const analysis::DelayAnalysis& d, DelayKind kind,
                                     std::uint32_t site) {
  for (const auto& c : d.delays) {
    if (c.kind == kind && c.callsite == site) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("delay analysis: a compute imbalance causes the waiting in the Allreduce", "[analysis]") {
  // Rank 0 computes 13 ms a step, rank 1 10 ms: rank 1 waits 3 ms in each of 3
  // Allreduces for rank 0's extra computation.
  auto t = ranks(2);
  std::int64_t at = 0;
  for (int step = 0; step < 3; ++step) {
    collective(t, Allreduce, static_cast<std::uint32_t>(step + 1), {at + 13 * kMs, at + 10 * kMs},
               at + 13 * kMs + 100 * kUs);
    at += 13 * kMs + 100 * kUs;
  }
  const auto d = delays_of(t);
  const auto& w = causes_at(d, Allreduce);
  CHECK(w.wait_s == Approx(9e-3));
  CHECK(w.wait_states == 3);
  CHECK(w.computation_s == Approx(9e-3));
  CHECK(w.latency_s + w.bandwidth_s + w.propagated_s + w.unexplained_s == Approx(0).margin(1e-9));
  const auto* compute = delay_of(d, DelayKind::computation, Allreduce);
  REQUIRE(compute);
  CHECK(compute->short_term_s == Approx(9e-3));
  CHECK(compute->long_term_s == Approx(9e-3));
  CHECK(compute->long_term_by_rank.at(0) == Approx(9e-3));
  CHECK(compute->long_term_by_rank.count(1) == 0);
}

TEST_CASE("delay analysis: rank 0's extra compute makes rank 1 late for rank 2 (propagated)",
          "[analysis]") {
  auto t = ranks(3);
  // Rank 0 computes 10 ms and sends to rank 1.
  add(t, 0, Send, TraceRole::send, 10 * kMs, 10 * kMs + 10 * kUs, 1);
  // Rank 1 computes 1 ms, waits 9 ms in its Recv (late sender), sends on to rank 2.
  add(t, 1, Recv, TraceRole::recv, 1 * kMs, 10 * kMs + 20 * kUs, 0);
  add(t, 1, Send, TraceRole::send, 10 * kMs + 30 * kUs, 10 * kMs + 40 * kUs, 2);
  // Rank 2 computes 1 ms and waits for rank 1 at a callsite of its own (10).
  add(t, 2, Recv, TraceRole::recv, 1 * kMs, 10 * kMs + 50 * kUs, 1).callsite = 10;
  const auto d = delays_of(t);

  const auto& first = causes_at(d, Recv);  // rank 1's: rank 0's computation
  CHECK(first.wait_s == Approx(9e-3));
  CHECK(first.computation_s == Approx(9e-3));
  CHECK(first.propagated_s == Approx(0).margin(1e-9));

  // Rank 2's 9.03 ms: rank 1 was late because it waited, not because it computed.
  const auto& second = causes_at(d, 10);
  CHECK(second.wait_s == Approx(9.03e-3));
  CHECK(second.propagated_s >= 0.9 * second.wait_s);
  CHECK(second.propagated_from.at({Recv, Recv}) == Approx(second.propagated_s));
  CHECK(second.computation_s + second.latency_s + second.bandwidth_s + second.propagated_s ==
        Approx(second.wait_s));

  // Rank 0's computation caused its 9 ms directly and, through rank 1, most of rank
  // 2's 9.03 ms as well.
  const auto* compute = delay_of(d, DelayKind::computation, Send);
  REQUIRE(compute);
  CHECK(compute->long_term_by_rank.at(0) >= 9e-3 + 0.9 * 9.03e-3);
  CHECK(compute->long_term_by_rank.at(0) <= 9e-3 + 9.03e-3);
  CHECK(d.long_term_s == Approx(d.wait_s));  // every wait charged to a root cause once
}

TEST_CASE("delay analysis: a large transfer makes its sender late for its next partner",
          "[analysis]") {
  auto t = ranks(3);
  // Rank 0 sends 1 MiB to rank 1, whose receive was posted at once: 10 ms of
  // transfer, no waiting. Then it sends 64 B to rank 2, which waited from 0.2 ms.
  add(t, 0, Send, TraceRole::send, 100 * kUs, 10 * kMs + 100 * kUs, 1, 1 << 20);
  add(t, 1, Recv, TraceRole::recv, 100 * kUs, 10 * kMs + 110 * kUs, 0, 1 << 20);
  add(t, 0, Send, TraceRole::send, 10 * kMs + 200 * kUs, 10 * kMs + 210 * kUs, 2, 64).callsite = 11;
  add(t, 2, Recv, TraceRole::recv, 200 * kUs, 10 * kMs + 220 * kUs, 0, 64).callsite = 12;
  const auto d = delays_of(t);
  const auto& w = causes_at(d, 12);
  CHECK(w.wait_s == Approx(10e-3));
  CHECK(w.bandwidth_s >= 0.9 * w.wait_s);
  CHECK(w.computation_s + w.latency_s + w.propagated_s + w.unexplained_s <= 0.1 * w.wait_s);
  const auto* transfer = delay_of(d, DelayKind::bandwidth, Send);
  REQUIRE(transfer);
  CHECK(transfer->short_term_s >= 0.9 * 10e-3);
}

TEST_CASE("delay analysis: a partner that left the previous synchronization late was delayed there",
          "[analysis]") {
  // Rank 1 leaves the first Barrier 5 ms after rank 0 (its exit says so), then
  // receives rank 0's message, sent at 1 ms, at once. Rank 0 waits in a second
  // Barrier for rank 1: rank 1's delay is its time in the first Barrier's call
  // (communication), not computation, which rank 0 had more of.
  auto t = ranks(2);
  t.ranks[1].synced[1] = 5 * kMs;  // the first Barrier's exit on rank 1
  add(t, 0, Send, TraceRole::send, 1 * kMs, 1 * kMs + 10 * kUs, 1);
  add(t, 1, Recv, TraceRole::recv, 5 * kMs, 5 * kMs + 10 * kUs, 0);
  collective(t, Barrier, 1, {2 * kMs, 5 * kMs + 20 * kUs}, 5 * kMs + 30 * kUs);
  const auto d = delays_of(t);
  const auto& w = causes_at(d, Barrier);
  CHECK(w.wait_s == Approx(3.02e-3));
  CHECK(w.latency_s >= 0.9 * w.wait_s);
  CHECK(w.computation_s + w.latency_s + w.bandwidth_s + w.propagated_s + w.unexplained_s ==
        Approx(w.wait_s));
}
