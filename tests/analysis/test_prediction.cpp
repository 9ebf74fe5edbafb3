// The prediction replay on hand-built synchronized traces whose predicted times
// follow from the model by hand.
#include <catch2/catch.hpp>

#include "analysis/prediction.hpp"
#include "analysis/prediction_limits.hpp"
#include "sync/trace_matching.hpp"
#include "synced_records.hpp"

using namespace mpidle;
using model::CollectiveKind;
using model::TraceRecord;
using model::TraceRole;

namespace {

enum Fn : std::uint32_t { Send, Recv, Allreduce, Compute, Isend, Irecv, Wait, Test, Sendrecv };

model::Trace ranks(int n) {
  model::Trace t;
  t.functions = {"MPI_Send",  "MPI_Recv", "MPI_Allreduce", "MPI_Comm_rank", "MPI_Isend",
                 "MPI_Irecv", "MPI_Wait", "MPI_Test",      "MPI_Sendrecv"};
  t.callsites.resize(9);
  t.ranks.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) t.ranks[static_cast<std::size_t>(r)].rank = r;
  return t;
}

TraceRecord& add(model::Trace& t, int rank, Fn fn, TraceRole role, std::int64_t enter,
                 std::int64_t exit, std::int32_t peer = -1, std::uint64_t bytes = 0) {
  return test::add_synced(t, rank, fn, role, enter, exit, peer, bytes);
}

// 1 us + 1 ns per byte; eager up to 1 KiB; Allreduce 2 us on 3 ranks.
analysis::PredictionInput machine() {
  analysis::PredictionInput in;
  in.machine.name = "target";
  in.machine.p2p = model::CostCurve{{{0, 1e-6}, {1'000'000, 1.001e-3}}};
  in.machine.eager_limit_bytes = 1024;
  in.machine.collectives["Allreduce"].by_ranks[3] = model::CostCurve{{{0, 2e-6}}};
  return in;
}

// Rank 0 sends 100 B and receives the answer; rank 1 computes 1 us in between.
model::Trace ping_pong() {
  auto t = ranks(2);
  add(t, 0, Send, TraceRole::send, 0, 500, 1, 100);
  add(t, 0, Recv, TraceRole::recv, 600, 5000, 1, 100);
  add(t, 1, Recv, TraceRole::recv, 0, 2000, 0, 100);
  add(t, 1, Send, TraceRole::send, 3000, 3500, 0, 100);
  return t;
}

analysis::Prediction run(const model::Trace& t, const analysis::PredictionInput& in) {
  return analysis::predict(t, sync::match_trace(t), in);
}

}  // namespace

TEST_CASE("prediction: a ping-pong takes the target's transfer time each way") {
  const auto t = ping_pong();
  const auto p = run(t, machine());
  // Rank 1's receive ends at 0 + 1100; its send starts 1000 later (its burst) at
  // 2100; rank 0's receive ends at 2100 + 1100.
  CHECK(p.wall_s == Approx(3200e-9));
  CHECK(p.measured_wall_s == Approx(5000e-9));
  CHECK(p.ranks[0].wall_s == Approx(3200e-9));
  CHECK(p.ranks[1].wall_s == Approx(2600e-9));  // eager send: its measured 500 ns
  // Rank 0 waits in its receive from 600 to 2100 + 1100, less the transfer.
  CHECK(p.ranks[0].time.wait_s == Approx(1500e-9));
  CHECK(p.ranks[1].time.compute_s == Approx(1000e-9));
  CHECK(p.unresolved == 0);
  CHECK(p.events == 4);
}

TEST_CASE("prediction: a Sendrecv's message carries its send half's bytes") {
  // Both ranks exchange 100,000 B at once. The call's record counts both halves'
  // bytes (200,000); the message is the send half's: 1 us + 100 us each way, at once.
  auto t = ranks(2);
  for (int r = 0; r < 2; ++r) {
    add(t, r, Sendrecv, TraceRole::recv, 0, 90'000, 1 - r, 200'000);
    add(t, r, Sendrecv, TraceRole::send, 0, 90'000, 1 - r, 100'000).extra = 1;
  }
  auto in = machine();
  in.machine.eager_limit_bytes = 1'000'000;
  const auto p = run(t, in);
  CHECK(p.unresolved == 0);
  CHECK(p.wall_s == Approx(101'000e-9));
}

namespace {
// Each rank of `n` exchanges 100 B with `partner(r)` by Sendrecv, receiving from
// `source(r)`, entering at `enter(r)`.
template <typename Dest, typename Source, typename Enter>
model::Trace sendrecvs(int n, Dest partner, Source source, Enter enter) {
  auto t = ranks(n);
  for (int r = 0; r < n; ++r) {
    add(t, r, Sendrecv, TraceRole::recv, enter(r), 90'000, source(r), 200);
    add(t, r, Sendrecv, TraceRole::send, enter(r), 90'000, partner(r), 100).extra = 1;
  }
  return t;
}

// machine() with overheads of 100 ns each side and an exchange both ways of 5 us
// at 0 B, 5.1 us at 100 B (one way: 1.1 us at 100 B).
analysis::PredictionInput machine_with_exchange() {
  auto in = machine();
  model::MessageCosts costs;
  costs.send_overhead = model::CostCurve{{{0, 100e-9}}};
  costs.receive_overhead = model::CostCurve{{{0, 100e-9}}};
  costs.protocols = {{0, false, true}};
  costs.exchange = model::CostCurve{{{0, 5e-6}, {1000, 6e-6}}};
  in.machine.messages = costs;
  return in;
}
}  // namespace

TEST_CASE("prediction: an exchange both ways costs the target's measured exchange") {
  const auto other = [](int r) { return 1 - r; };
  // Both enter at 0: each ends 5.1 us later, where one way would say 1.1 us.
  auto t = sendrecvs(2, other, other, [](int) { return 0; });
  CHECK(analysis::two_way_exchanges(t, sync::match_trace(t)) == std::vector<std::uint8_t>{1, 1});
  auto p = run(t, machine_with_exchange());
  CHECK(p.unresolved == 0);
  CHECK(p.wall_s == Approx(5100e-9));
  CHECK(p.ranks[0].wall_s == Approx(5100e-9));
  // The exchange starts once both are in it: rank 1 enters 2 us late.
  t = sendrecvs(2, other, other, [](int r) { return r == 1 ? 2000 : 0; });
  p = run(t, machine_with_exchange());
  CHECK(p.ranks[0].wall_s == Approx(7100e-9));
  CHECK(p.ranks[0].time.wait_s == Approx(2000e-9));
  // A model without a measured exchange: one way each direction.
  t = sendrecvs(2, other, other, [](int) { return 0; });
  auto in = machine_with_exchange();
  in.machine.messages->exchange.reset();
  CHECK(run(t, in).wall_s == Approx(1100e-9));
}

TEST_CASE("prediction: a ring of Sendrecvs is not an exchange both ways") {
  // Three ranks each send to the next and receive from the one before: every
  // message goes one way, so each takes the one-way 1.1 us.
  auto t = sendrecvs(
      3, [](int r) { return (r + 1) % 3; }, [](int r) { return (r + 2) % 3; },
      [](int) { return 0; });
  CHECK(analysis::two_way_exchanges(t, sync::match_trace(t)) == std::vector<std::uint8_t>{0, 0, 0});
  const auto p = run(t, machine_with_exchange());
  CHECK(p.unresolved == 0);
  CHECK(p.wall_s == Approx(1100e-9));
  const auto limits =
      analysis::model_limits(t, sync::match_trace(t), machine_with_exchange().machine);
  REQUIRE(limits.size() == 1);
  CHECK_THAT(limits[0], Catch::StartsWith("3 Sendrecv calls send to another rank than the one"));
}

TEST_CASE("prediction: a slower CPU stretches the bursts, a slower network the transfers") {
  const auto t = ping_pong();
  auto in = machine();
  in.cpu_scale = 2;
  CHECK(run(t, in).wall_s == Approx(4200e-9));  // rank 1's burst is 2000 now
  in.cpu_scale = 1;
  in.machine.p2p = in.machine.p2p.with_latency(11e-6);
  // 11.1 us each way, and the 1 us burst between.
  CHECK(run(t, in).wall_s == Approx((11100 + 1000 + 11100) * 1e-9));
}

TEST_CASE("prediction: a rendezvous send waits for its receive to be posted") {
  auto t = ranks(2);
  add(t, 0, Send, TraceRole::send, 0, 8000, 1, 4096);
  add(t, 1, Recv, TraceRole::recv, 5000, 8000, 0, 4096);
  const auto p = run(t, machine());
  // The transfer (1 us + 4096 ns) starts when the receive is posted at 5000.
  CHECK(p.ranks[0].wall_s == Approx((5000 + 5096) * 1e-9));
  CHECK(p.ranks[1].wall_s == Approx((5000 + 5096) * 1e-9));
  CHECK(p.ranks[0].time.wait_s == Approx(5000e-9));
}

TEST_CASE("prediction: an Allreduce ends its cost after the last rank entered") {
  auto t = ranks(3);
  test::add_collective(t, Allreduce, CollectiveKind::n_to_n, {0, 100, 300}, 10'000);
  const auto p = run(t, machine());
  CHECK(p.wall_s == Approx(2300e-9));
  CHECK(p.total.wait_s == Approx(500e-9));  // 300 + 200 + 0
  CHECK(p.total.latency_s == Approx(3 * 2000e-9));
  CHECK(p.dominant() == "latency");
  REQUIRE(p.sites.size() == 1);
  CHECK(p.sites[0].calls == 3);
}

// The machine() above with mpidle-machine/2's message costs: sends cost their CPU
// 300 ns, receives 700 ns; rendezvous above 1 KiB, moving alone or not.
analysis::PredictionInput machine_with_overheads(bool progresses) {
  auto in = machine();
  model::MessageCosts costs;
  costs.send_overhead = model::CostCurve{{{0, 300e-9}}};
  costs.receive_overhead = model::CostCurve{{{0, 700e-9}}};
  costs.protocols = {{0, false, true}, {1025, true, progresses}};
  in.machine.messages = costs;
  return in;
}

TEST_CASE("prediction: a message's overheads take the CPU of its sender and its receiver") {
  // Rank 0 sends 100 B at 0 and stops; rank 1 computes until 5000, then receives
  // the message, long arrived, and stops.
  auto t = ranks(2);
  add(t, 0, Send, TraceRole::send, 0, 500, 1, 100);
  add(t, 1, Compute, TraceRole::other, 0, 100);
  add(t, 1, Recv, TraceRole::recv, 5000, 5100, 0, 100);
  // Version 1 model: the send takes its transfer time at most (its measured 500 ns),
  // the receive nothing once the data is there.
  auto p = run(t, machine());
  CHECK(p.ranks[0].wall_s == Approx(500e-9));
  CHECK(p.ranks[1].wall_s == Approx(5000e-9));
  // With overheads: the send costs 300 ns, the receive 700 ns after its enter.
  p = run(t, machine_with_overheads(true));
  CHECK(p.ranks[0].wall_s == Approx(300e-9));
  CHECK(p.ranks[1].wall_s == Approx(5700e-9));
  CHECK(p.ranks[1].time.wait_s == Approx(0).margin(1e-12));
}

namespace {
// Rank 0 starts a 4 KiB Isend at 0 and waits for it at 5000 (after a burst);
// rank 1 posts the Irecv at 0 and waits at 1000. Both Waits end at 9000 here.
model::Trace held_exchange(Fn receiver_completes_with) {
  auto t = ranks(2);
  add(t, 0, Isend, TraceRole::isend, 0, 100, 1, 4096).sequence = 1;
  add(t, 0, Wait, TraceRole::completion, 5000, 9000).sequence = 1;
  add(t, 1, Irecv, TraceRole::irecv, 0, 100, 0, 4096).sequence = 1;
  auto& done = add(t, 1, receiver_completes_with, TraceRole::completion, 1000, 9000, 0, 4096);
  done.sequence = 1;
  return t;
}
}  // namespace

TEST_CASE("prediction: a transfer that needs progress moves only once both sides wait for it") {
  // 4 KiB: rendezvous, 1 us + 4096 ns on the target. The Isend costs the target's
  // 300 ns (100 measured), so rank 0 enters its Wait at 5200.
  const std::int64_t transfer = 1000 + 4096, waits = 5200;
  const auto t = held_exchange(Wait);
  // Progressing alone: it starts when both are posted (0), and is done by the time
  // rank 0 waits; rank 1's Wait ends with it.
  auto p = run(t, machine_with_overheads(true));
  CHECK(p.ranks[1].wall_s == Approx(transfer * 1e-9));
  CHECK(p.ranks[0].wall_s == Approx(waits * 1e-9));
  CHECK(p.unresolved == 0);
  // Needing progress: it starts when rank 0 enters its Wait (rank 1 has been
  // waiting since 1000); both Waits end with it.
  p = run(t, machine_with_overheads(false));
  CHECK(p.ranks[0].wall_s == Approx((waits + transfer) * 1e-9));
  CHECK(p.ranks[1].wall_s == Approx((waits + transfer) * 1e-9));
  CHECK(p.ranks[1].time.wait_s == Approx((waits - 1000) * 1e-9));
  CHECK(p.unresolved == 0);
  // A receiver that polls (MPI_Test) enters MPI again and again: not held there.
  p = run(held_exchange(Test), machine_with_overheads(false));
  CHECK(p.ranks[0].wall_s == Approx(waits * 1e-9));
}

TEST_CASE("prediction: the protocol is the target's for the message's size") {
  // 512 B is eager on the target (rendezvous from 1025 B): the send does not wait
  // for a receive posted at 5000, it costs its overhead; at 4 KiB it waits.
  for (const std::uint64_t bytes : {512u, 4096u}) {
    auto t = ranks(2);
    add(t, 0, Send, TraceRole::send, 0, 8000, 1, bytes);
    add(t, 1, Recv, TraceRole::recv, 5000, 8000, 0, bytes);
    const auto p = run(t, machine_with_overheads(true));
    INFO(bytes << " B");
    if (bytes == 512) {
      CHECK(p.ranks[0].wall_s == Approx(300e-9));
      CHECK(p.ranks[1].wall_s == Approx(5700e-9));
    } else {
      CHECK(p.ranks[0].wall_s == Approx((5000 + 1000 + 4096) * 1e-9));
    }
  }
}

TEST_CASE("prediction: calls the model does not cover keep their measured time") {
  auto t = ranks(1);
  add(t, 0, Compute, TraceRole::other, 0, 700);
  add(t, 0, Compute, TraceRole::other, 1700, 1900);
  auto in = machine();
  in.cpu_scale = 0.5;
  const auto p = run(t, in);
  CHECK(p.wall_s == Approx((700 + 500 + 200) * 1e-9));
  CHECK(p.total.other_s == Approx(900e-9));
  CHECK(p.total.compute_s == Approx(500e-9));
}

TEST_CASE("prediction: an inconsistent trace (each rank receives first) ends, counted") {
  auto t = ranks(2);
  add(t, 0, Recv, TraceRole::recv, 0, 100, 1, 8);
  add(t, 0, Send, TraceRole::send, 200, 300, 1, 8);
  add(t, 1, Recv, TraceRole::recv, 0, 100, 0, 8);
  add(t, 1, Send, TraceRole::send, 200, 300, 0, 8);
  const auto p = run(t, machine());
  CHECK(p.unresolved >= 1);
  CHECK(p.wall_s > 0);
}

TEST_CASE("prediction: a trace without synchronized times is refused") {
  auto t = ping_pong();
  t.ranks[0].synced.clear();
  CHECK_THROWS_AS(run(t, machine()), model::TraceError);
}

TEST_CASE("prediction: what the model does not describe is named, with how many calls") {
  auto t = ranks(2);
  for (int r = 0; r < 2; ++r) {
    add(t, r, Sendrecv, TraceRole::recv, 0, 90'000, 1 - r, 200'000);
    add(t, r, Sendrecv, TraceRole::send, 0, 90'000, 1 - r, 100'000).extra = 1;
  }
  // A rendezvous message of 4 KiB that rank 1 completes by polling.
  add(t, 0, Send, TraceRole::send, 100'000, 110'000, 1, 4096);
  add(t, 1, Irecv, TraceRole::irecv, 100'000, 100'100, 0, 4096).sequence = 7;
  auto& done = add(t, 1, Test, TraceRole::completion, 109'000, 110'000, 0, 4096);
  done.sequence = 7;
  auto in = machine();
  auto limits = analysis::model_limits(t, sync::match_trace(t), in.machine);
  REQUIRE(limits.size() == 1);  // the model has no protocols: only the exchanges
  CHECK_THAT(limits[0], Catch::StartsWith("2 exchanges both ways at once"));
  model::MessageCosts costs;
  costs.protocols = {{0, false, true}, {1025, true, false}};
  in.machine.messages = costs;
  limits = analysis::model_limits(t, sync::match_trace(t), in.machine);
  REQUIRE(limits.size() == 3);
  CHECK_THAT(limits[1], Catch::StartsWith("1 rendezvous messages completed by polling"));
  CHECK_THAT(limits[2], Catch::StartsWith("1 blocking sends above the eager limit"));
}

TEST_CASE("prediction: a transfer that needs progress moves in any call of both ranks") {
  // LAMMPS' halo exchange: each rank posts an Irecv from the other, sends it 4 KiB
  // (rendezvous, held until both are in MPI), then waits. Both ranks are in their
  // sends from 100 on: both messages move at once, 1 us + 4096 ns, not one after
  // the other.
  auto t = ranks(2);
  for (int r = 0; r < 2; ++r) {
    add(t, r, Irecv, TraceRole::irecv, 0, 100, 1 - r, 4096).sequence = 1;
    add(t, r, Send, TraceRole::send, 100, 9000, 1 - r, 4096);
    add(t, r, Wait, TraceRole::completion, 9000, 9100, 1 - r, 4096).sequence = 1;
  }
  const std::int64_t transfer = 1000 + 4096;
  const auto p = run(t, machine_with_overheads(false));
  CHECK(p.unresolved == 0);
  // The Irecv costs nothing modelled (its measured 100 ns); each Send ends with its
  // transfer, each Wait with the other's plus the receive overhead.
  CHECK(p.wall_s == Approx((100 + transfer + 700) * 1e-9));
  CHECK(p.wall_s < (100 + 2 * transfer) * 1e-9);
}

namespace {
// Every (from, to) pair sends 100,000 B by Isend at 0, its receiver posting the
// Irecv at 0; each rank completes its requests in one Waitall at 20.
model::Trace concurrent_messages(int n, const std::vector<std::pair<int, int>>& pairs) {
  auto t = ranks(n);
  std::vector<std::vector<std::pair<int, std::uint32_t>>> completes(static_cast<std::size_t>(n));
  std::uint32_t serial = 0;
  for (const auto& [from, to] : pairs) {
    ++serial;
    add(t, from, Isend, TraceRole::isend, 0, 5, to, 100'000).sequence = serial;
    add(t, to, Irecv, TraceRole::irecv, 0, 5, from, 100'000).sequence = serial;
    completes[static_cast<std::size_t>(from)].push_back({to, serial});
    completes[static_cast<std::size_t>(to)].push_back({from, serial});
  }
  for (int r = 0; r < n; ++r) {
    add(t, r, Wait, TraceRole::other, 20, 1'000'000);
    for (const auto& [peer, s] : completes[static_cast<std::size_t>(r)]) {
      auto& done = add(t, r, Wait, TraceRole::completion, 20, 1'000'000, peer, 100'000);
      done.sequence = s;
      done.extra = 1;
    }
  }
  return t;
}
}  // namespace

TEST_CASE("prediction: messages at once on one link take their turns on it") {
  // 1 us + 100 us each; the link is busy for the 100 us of bandwidth. The 5 ns
  // Isends and Irecvs shift the starts by a few ns.
  const auto in = machine();
  SECTION("two from one rank to another: the second moves once the first has") {
    const auto p = run(concurrent_messages(2, {{0, 1}, {0, 1}}), in);
    CHECK(p.unresolved == 0);
    CHECK(p.wall_s == Approx(201'000e-9).margin(10e-9));
    // The turn on the link is bandwidth, not waiting for a partner: rank 0's
    // Waitall (entered at 25, after two Isends and its 15 ns burst) is all transfer.
    CHECK(p.ranks[0].time.wait_s == Approx(0).margin(1e-12));
    CHECK(p.ranks[0].time.bandwidth_s == Approx((201'000 - 25 - 1'000) * 1e-9));
  }
  SECTION("two into one rank from two others: its incoming link takes them in turn") {
    CHECK(run(concurrent_messages(3, {{0, 1}, {2, 1}}), in).wall_s ==
          Approx(201'000e-9).margin(10e-9));
    // Three senders, in whatever order the replay reaches them.
    CHECK(run(concurrent_messages(4, {{0, 1}, {2, 1}, {3, 1}}), in).wall_s ==
          Approx(301'000e-9).margin(10e-9));
  }
  SECTION("both directions at once, or two separate pairs: every link carries one") {
    CHECK(run(concurrent_messages(2, {{0, 1}, {1, 0}}), in).wall_s ==
          Approx(101'000e-9).margin(10e-9));
    CHECK(run(concurrent_messages(4, {{0, 1}, {2, 3}}), in).wall_s ==
          Approx(101'000e-9).margin(10e-9));
  }
}
