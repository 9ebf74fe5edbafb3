// Root causes from the trace windows (analysis/window_delays) on simulated ranks:
// each rank's records and wait states built by hand, the queries and answers handed
// from one rank to another as the finalize's exchanges would carry them.
#include <catch2/catch.hpp>

#include "analysis/window_delays.hpp"
#include "synced_records.hpp"

using namespace mpidle;
using analysis::Pattern;
using model::TraceRole;

namespace {

enum Fn : std::uint32_t { Send, Recv, Barrier, Allreduce };
constexpr std::int64_t kMs = 1'000'000;

model::Trace ranks(int n) {
  model::Trace t;
  t.functions = {"MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Allreduce"};
  t.callsites.resize(8);
  for (std::size_t c = 0; c < t.callsites.size(); ++c)
    t.callsites[c].frames = {{"app", 0x100 * (c + 1), "", "", 0}};
  t.ranks.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    t.ranks[static_cast<std::size_t>(r)].rank = r;
    // Every rank leaves a Barrier of all of them at 0: the first synchronization.
    auto& rec = test::add_synced(t, r, Barrier, TraceRole::collective, -kMs / 1000, 0);
    rec.comm = 1;
    rec.tag = n;  // the communicator's shape: n ranks
  }
  return t;
}

model::TraceRecord& add(model::Trace& t, int rank, Fn fn, TraceRole role, std::int64_t enter,
                        std::int64_t exit, std::int32_t peer = -1, std::uint64_t bytes = 0) {
  return test::add_synced(t, rank, fn, role, enter, exit, peer, bytes);
}

// Each rank's waits by record, from its wait states.
analysis::CallWaits waits_of(const model::RankTrace& rank,
                             const std::vector<analysis::RankWaitEvent>& events) {
  analysis::CallWaits w;
  w.assign(rank.records.size(), 0);
  for (const auto& e : events) w[e.record] += e.until - e.start;
  return w;
}

// The three steps over all ranks: every rank's causes, by rank. One window over
// everything unless `openings` says.
std::vector<std::map<model::CauseSiteKey, model::WindowCauses>> run(
    const model::Trace& t, const std::vector<std::vector<analysis::RankWaitEvent>>& events,
    const model::WindowOpenings& openings = {{-kMs}}) {
  const auto n = static_cast<std::int32_t>(t.ranks.size());
  std::vector<analysis::CallWaits> waits;
  std::vector<analysis::RankTimeline> timelines;
  std::vector<analysis::WindowDelays> delays;
  for (std::int32_t r = 0; r < n; ++r) waits.push_back(waits_of(t.ranks[r], events[r]));
  for (std::int32_t r = 0; r < n; ++r) {
    timelines.emplace_back(t.ranks[r], waits[r], openings);
    delays.emplace_back(t, t.ranks[r], r, n, openings, events[r]);
  }
  // Step 1: the queries, carried to the ranks asked.
  std::vector<sync::Parcels> asked(t.ranks.size());
  for (std::int32_t r = 0; r < n; ++r) {
    for (auto& [to, bytes] : delays[r].queries()) asked[to].emplace_back(r, std::move(bytes));
  }
  // Step 2: the answers, carried back.
  std::vector<sync::Parcels> answered(t.ranks.size());
  for (std::int32_t s = 0; s < n; ++s) {
    for (auto& [to, bytes] : analysis::answer_delay_queries(timelines[s], asked[s]))
      answered[to].emplace_back(s, std::move(bytes));
  }
  // Step 3.
  std::vector<std::map<model::CauseSiteKey, model::WindowCauses>> out;
  for (std::int32_t r = 0; r < n; ++r) {
    delays[r].apply(answered[r], timelines[r]);
    out.push_back(delays[r].causes());
  }
  return out;
}

const model::WindowCauses& at(const std::map<model::CauseSiteKey, model::WindowCauses>& causes,
                              const model::Trace& t, Fn fn) {
  const model::CauseSiteKey key{t.functions[fn], model::site_identity(t.callsites[fn])};
  REQUIRE(causes.count(key) == 1);
  return causes.at(key);
}

}  // namespace

TEST_CASE("window delays: a rank's time by kind in an interval", "[analysis]") {
  model::Trace t = ranks(1);
  // A receive [10, 20) ms that waited 4 ms (8 B), a send [30, 50) ms of 1 MiB.
  add(t, 0, Recv, TraceRole::recv, 10 * kMs, 20 * kMs, 1, 8);
  add(t, 0, Send, TraceRole::send, 30 * kMs, 50 * kMs, 1, 1 << 20);
  analysis::CallWaits waits;
  waits.assign(t.ranks[0].records.size(), 0);
  waits[1] = 4 * kMs;
  const analysis::RankTimeline timeline(t.ranks[0], waits);
  const auto all = timeline.between(0, 60 * kMs);
  CHECK(all.computation == Approx(0.030));  // 0-10, 20-30, 50-60
  CHECK(all.waiting == Approx(0.004));
  CHECK(all.latency == Approx(0.006));
  CHECK(all.bandwidth == Approx(0.020));
  // Clipped at both ends: in a call, its waiting first, then its processing.
  const auto part = timeline.between(12 * kMs, 35 * kMs);
  CHECK(part.waiting == Approx(0.002));
  CHECK(part.latency == Approx(0.006));
  CHECK(part.computation == Approx(0.010));
  CHECK(part.bandwidth == Approx(0.005));
  // Inside one call, and inside a gap.
  CHECK(timeline.between(11 * kMs, 13 * kMs).waiting == Approx(0.002));
  CHECK(timeline.between(22 * kMs, 27 * kMs).computation == Approx(0.005));
  CHECK(timeline.between(5 * kMs, 5 * kMs).computation == 0);
}

TEST_CASE("window delays: a chain splits into computation and propagated waiting", "[analysis]") {
  // Rank 0 computes 60 ms and sends to rank 1; rank 1 computes 5 ms, waits in its
  // receive until 60 ms, and sends on to rank 2 at 61 ms; rank 2 computes 5 ms and
  // waits in its receive until 61 ms.
  model::Trace t = ranks(3);
  add(t, 0, Send, TraceRole::send, 60 * kMs, 60 * kMs + 10'000, 1, 8);
  add(t, 1, Recv, TraceRole::recv, 5 * kMs, 60 * kMs + 20'000, 0, 8);
  add(t, 1, Send, TraceRole::send, 61 * kMs, 61 * kMs + 10'000, 2, 8);
  add(t, 2, Recv, TraceRole::recv, 5 * kMs, 61 * kMs + 20'000, 1, 8);
  std::vector<std::vector<analysis::RankWaitEvent>> events(3);
  events[1] = {{Pattern::late_sender, 1, 5 * kMs, 60 * kMs, 0}};
  events[2] = {{Pattern::late_sender, 1, 5 * kMs, 61 * kMs, 1}};
  const auto causes = run(t, events);
  CHECK(causes[0].empty());
  // Rank 1 waited for rank 0's computation.
  const auto& first = at(causes[1], t, Recv);
  CHECK(first.wait_states == 1);
  CHECK(first.wait_s == Approx(0.055));
  CHECK(first.computation_s == Approx(0.055));
  CHECK(first.propagated_s == Approx(0).margin(1e-12));
  // Rank 2 waited because rank 1 waited (55 of its 56 ms), and for rank 1's last
  // millisecond: the end of its receive (20 us, latency) and its computation after.
  const auto& second = at(causes[2], t, Recv);
  CHECK(second.wait_s == Approx(0.056));
  CHECK(second.propagated_s == Approx(0.055));
  CHECK(second.latency_s == Approx(0.00002));
  CHECK(second.computation_s == Approx(0.00098));
  CHECK(second.unexplained_s == 0);
}

TEST_CASE("window delays: a collective's waiting for the last to enter, and a transfer",
          "[analysis]") {
  // Rank 0 computes 100 ms, ranks 1 and 2 60 ms, then an Allreduce of all three;
  // then rank 0 sends 64 MiB to rank 1 for 200 ms and 64 B to rank 2, whose receive
  // waits for it.
  model::Trace t = ranks(3);
  for (int r = 0; r < 3; ++r) {
    auto& rec =
        add(t, r, Allreduce, TraceRole::collective, r == 0 ? 100 * kMs : 60 * kMs, 101 * kMs);
    rec.comm = 1;
    rec.tag = 3;
  }
  add(t, 0, Send, TraceRole::send, 101 * kMs, 301 * kMs, 1, 64 << 20);
  add(t, 1, Recv, TraceRole::recv, 101 * kMs, 301 * kMs, 0, 64 << 20);
  add(t, 0, Send, TraceRole::send, 301 * kMs, 301 * kMs + 10'000, 2, 64);
  add(t, 2, Recv, TraceRole::recv, 101 * kMs, 301 * kMs + 20'000, 0, 64);
  std::vector<std::vector<analysis::RankWaitEvent>> events(3);
  for (int r : {1, 2}) events[r] = {{Pattern::wait_nxn, 1, 60 * kMs, 100 * kMs, 0}};
  events[2].push_back({Pattern::late_sender, 2, 101 * kMs, 301 * kMs, 0});
  const auto causes = run(t, events);
  // The Allreduce: rank 0's computation, on both ranks.
  for (int r : {1, 2}) {
    const auto& allreduce = at(causes[r], t, Allreduce);
    CHECK(allreduce.computation_s == Approx(0.040));
    CHECK(allreduce.wait_s == Approx(0.040));
  }
  // Rank 2's receive: from the Allreduce both left at 101 ms, rank 0 spent 200 ms
  // sending 64 MiB: bandwidth.
  const auto& receive = at(causes[2], t, Recv);
  CHECK(receive.wait_s == Approx(0.200));
  CHECK(receive.bandwidth_s == Approx(0.200));
  CHECK(receive.latency_s == Approx(0).margin(1e-9));
  // A wait state whose cause is unknown, or did not answer, is unexplained.
  std::vector<std::vector<analysis::RankWaitEvent>> unknown(3);
  unknown[1] = {{Pattern::wait_nxn, 1, 60 * kMs, 100 * kMs, -1}};
  const auto unexplained = run(t, unknown);
  CHECK(at(unexplained[1], t, Allreduce).unexplained_s == Approx(0.040));
}

TEST_CASE("window delays: an unreadable answer is an error, an empty one no answer", "[analysis]") {
  model::Trace t = ranks(2);
  add(t, 0, Send, TraceRole::send, 60 * kMs, 60 * kMs + 10'000, 1, 8);
  add(t, 1, Recv, TraceRole::recv, 5 * kMs, 60 * kMs + 20'000, 0, 8);
  const std::vector<analysis::RankWaitEvent> events = {
      {Pattern::late_sender, 1, 5 * kMs, 60 * kMs, 0}};
  analysis::CallWaits waits = waits_of(t.ranks[1], events);
  const analysis::RankTimeline own(t.ranks[1], waits);
  analysis::WindowDelays delays(t, t.ranks[1], 1, 2, {{-kMs}}, events);
  REQUIRE(delays.queries().size() == 1);
  CHECK_THROWS_AS(delays.apply({{0, std::vector<std::byte>(3)}}, own), model::TraceError);
  analysis::WindowDelays unanswered(t, t.ranks[1], 1, 2, {{-kMs}}, events);
  (void)unanswered.queries();
  unanswered.apply({{0, {}}}, own);
  CHECK(at(unanswered.causes(), t, Recv).unexplained_s == Approx(0.055));
}

TEST_CASE("window delays: both sides count from where the partner's window records begin",
          "[analysis]") {
  // Two windows, opening at -1 and 40 ms. In the second, rank 1 waits in a receive
  // from 45 to 80 ms; its last synchronization with rank 0 (the Barrier) was in the
  // first window, so it would count from its receive's entry. Rank 0's records of
  // the second window begin at 60 ms (a 10 ms send to rank 2), then it sends to rank
  // 1 at 80 ms: what it did from 45 to 60 ms is not known, so both count from 60.
  model::Trace t = ranks(3);
  add(t, 0, Send, TraceRole::send, 60 * kMs, 70 * kMs, 2, 8);
  add(t, 0, Send, TraceRole::send, 80 * kMs, 80 * kMs + 10'000, 1, 8);
  add(t, 1, Recv, TraceRole::recv, 45 * kMs, 80 * kMs + 20'000, 0, 8);
  std::vector<std::vector<analysis::RankWaitEvent>> events(3);
  events[1] = {{Pattern::late_sender, 1, 45 * kMs, 80 * kMs, 0}};
  const model::WindowOpenings two{{-kMs, 40 * kMs}};
  const auto in_two = run(t, events, two);
  const auto& receive = at(in_two[1], t, Recv);
  // From 60 ms: rank 0 sent for 10 ms and computed for 10; rank 1 was waiting.
  CHECK(receive.wait_s == Approx(0.035));
  CHECK(receive.computation_s == Approx(0.0175));
  CHECK(receive.latency_s == Approx(0.0175));
  // In one window, rank 0's 45 to 60 ms would have been computation.
  const auto in_one = run(t, events);
  CHECK(at(in_one[1], t, Recv).computation_s == Approx(0.025));
}
