// The SimGrid engine on hand-built synchronized traces: what a lone message, a
// both-ways exchange on a shared or a split-duplex link, the protocols and the
// collectives must take, and that it agrees with mpidle's own replay where their
// models agree. Each prediction runs SimGrid in a child process.
#include <catch2/catch.hpp>

#include "analysis/prediction.hpp"
#include "analysis/simgrid_prediction.hpp"
#include "sync/trace_matching.hpp"
#include "synced_records.hpp"

using namespace mpidle;
using model::CollectiveKind;
using model::TraceRole;

namespace {

enum Fn : std::uint32_t { Send, Recv, Allreduce, Compute, Isend, Irecv, Wait, Sendrecv };

model::Trace ranks(int n) {
  model::Trace t;
  t.functions = {"MPI_Send",  "MPI_Recv",  "MPI_Allreduce", "MPI_Comm_rank",
                 "MPI_Isend", "MPI_Irecv", "MPI_Wait",      "MPI_Sendrecv"};
  t.callsites.resize(8);
  t.ranks.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) t.ranks[static_cast<std::size_t>(r)].rank = r;
  return t;
}

model::TraceRecord& add(model::Trace& t, int rank, Fn fn, TraceRole role, std::int64_t enter,
                        std::int64_t exit, std::int32_t peer = -1, std::uint64_t bytes = 0) {
  return test::add_synced(t, rank, fn, role, enter, exit, peer, bytes);
}

// 10 us + 40 ns per byte (25 MB/s); eager up to 1 KiB, overheads 100 ns a side;
// Allreduce 2 us on 3 ranks.
analysis::PredictionInput machine(model::LinkSharing sharing = model::LinkSharing::split_duplex) {
  analysis::PredictionInput in;
  in.machine.name = "target";
  in.machine.p2p = model::CostCurve{{{0, 10e-6}, {10'000'000, 10e-6 + 0.4}}};
  in.machine.eager_limit_bytes = 1024;
  model::MessageCosts costs;
  costs.send_overhead = model::CostCurve{{{0, 100e-9}}};
  costs.receive_overhead = model::CostCurve{{{0, 100e-9}}};
  costs.protocols = {{0, false, true}, {1025, true, true}};
  costs.sharing = sharing;
  in.machine.messages = costs;
  in.machine.collectives["Allreduce"].by_ranks[3] = model::CostCurve{{{0, 2e-6}}};
  return in;
}

analysis::Prediction simgrid(const model::Trace& t, const analysis::PredictionInput& in) {
  return analysis::predict_simgrid(t, sync::match_trace(t), in);
}
analysis::Prediction replay(const model::Trace& t, const analysis::PredictionInput& in) {
  return analysis::predict(t, sync::match_trace(t), in);
}

// Both ranks send `bytes` to each other at once (Isend, Irecv, Wait, Wait).
model::Trace exchange(std::uint64_t bytes) {
  auto t = ranks(2);
  for (int r = 0; r < 2; ++r) {
    add(t, r, Irecv, TraceRole::irecv, 0, 10, 1 - r, bytes).sequence = 1;
    add(t, r, Isend, TraceRole::isend, 20, 30, 1 - r, bytes).sequence = 2;
    add(t, r, Wait, TraceRole::completion, 40, 1'000'000, 1 - r, bytes).sequence = 1;
    add(t, r, Wait, TraceRole::completion, 1'000'010, 1'000'020, 1 - r, bytes).sequence = 2;
  }
  return t;
}

}  // namespace

TEST_CASE("simgrid: a lone message takes the model's one-way time at every size") {
  for (const std::uint64_t bytes :
       {std::uint64_t{0}, std::uint64_t{100}, std::uint64_t{4096}, std::uint64_t{1'000'000}}) {
    auto t = ranks(2);
    add(t, 0, Send, TraceRole::send, 0, 100, 1, bytes);
    add(t, 1, Recv, TraceRole::recv, 0, 100, 0, bytes);
    const auto in = machine();
    const auto p = simgrid(t, in);
    INFO(bytes << " bytes");
    CHECK(p.ranks[1].wall_s == Approx(in.machine.p2p.at(bytes)).epsilon(1e-6));
    CHECK(p.unresolved == 0);
  }
}

TEST_CASE("simgrid: two transfers at once share a shared link and not a split-duplex one") {
  const std::uint64_t bytes = 10'000'000;
  const double one_way = machine().machine.p2p.at(bytes);
  const auto split = simgrid(exchange(bytes), machine(model::LinkSharing::split_duplex));
  const auto shared = simgrid(exchange(bytes), machine(model::LinkSharing::shared));
  // Split-duplex: each direction its own. Shared: both on one rate.
  CHECK(split.wall_s / one_way == Approx(1.0).epsilon(0.01));
  CHECK(shared.wall_s / one_way == Approx(2.0).epsilon(0.02));
  // The slow-down is bandwidth on the link, not waiting for a partner.
  CHECK(shared.total.bandwidth_s > 3.5 * one_way);
  CHECK(shared.total.wait_s < 0.01 * one_way);
}

TEST_CASE("simgrid: two senders into one rank share its receiving side as the probe found") {
  // Ranks 1 and 2 send 10 MB to rank 0 at once (two Irecvs and a Waitall there).
  const std::uint64_t bytes = 10'000'000;
  auto t = ranks(3);
  for (int sender = 1; sender <= 2; ++sender) {
    add(t, 0, Irecv, TraceRole::irecv, 0, 10, sender, bytes).sequence =
        static_cast<std::uint64_t>(sender);
    add(t, sender, Send, TraceRole::send, 20, 1'000'000, 0, bytes);
  }
  for (int sender = 1; sender <= 2; ++sender) {
    add(t, 0, Wait, TraceRole::completion, 40 + 10 * sender, 1'000'000 + 10 * sender, sender, bytes)
        .sequence = static_cast<std::uint64_t>(sender);
  }
  const double one_way = machine().machine.p2p.at(bytes);
  for (const double incast : {0.0, 2.0, 1.05}) {
    auto in = machine(model::LinkSharing::split_duplex);
    in.machine.messages->incast_ratio = incast;
    const bool shared = model::receive_side_shared(&*in.machine.messages);
    INFO("incast ratio " << incast);
    CHECK(shared == (incast == 0.0 || incast > 1.5));  // not measured: shared, as a card is
    CHECK(simgrid(t, in).ranks[0].wall_s / one_way == Approx(shared ? 2.0 : 1.0).epsilon(0.02));
  }
}

TEST_CASE("simgrid: without a measured sharing the exchange curve decides") {
  auto in = machine(model::LinkSharing::unknown);
  const std::uint64_t bytes = 10'000'000;
  const double one_way = in.machine.p2p.at(bytes);
  in.machine.messages->exchange =
      model::CostCurve{{{0, 12e-6}, {65536, 2 * in.machine.p2p.at(65536)}, {bytes, 2 * one_way}}};
  CHECK(model::link_sharing(&*in.machine.messages, in.machine.p2p) == model::LinkSharing::shared);
  CHECK(simgrid(exchange(bytes), in).wall_s / one_way == Approx(2.0).epsilon(0.02));
  in.machine.messages->exchange = model::CostCurve{{{0, 12e-6}, {bytes, 1.07 * one_way}}};
  CHECK(model::link_sharing(&*in.machine.messages, in.machine.p2p) ==
        model::LinkSharing::split_duplex);
}

TEST_CASE("simgrid: an eager message leaves at its send, a rendezvous one at its receive") {
  // Rank 1 posts its receive at 5 ms. 100 B go eagerly: long arrived, the receive
  // costs its overhead. 100 kB wait for the receive: the send ends 5 ms + transfer.
  for (const std::uint64_t bytes : {std::uint64_t{100}, std::uint64_t{100'000}}) {
    auto t = ranks(2);
    add(t, 0, Send, TraceRole::send, 0, 100, 1, bytes);
    add(t, 1, Recv, TraceRole::recv, 5'000'000, 5'000'100, 0, bytes);
    const auto in = machine();
    const auto p = simgrid(t, in);
    const double transfer = in.machine.p2p.at(bytes);
    INFO(bytes << " bytes");
    if (bytes <= in.machine.eager_limit_bytes) {
      CHECK(p.ranks[0].wall_s == Approx(100e-9));  // its send overhead
      CHECK(p.ranks[1].wall_s == Approx(5e-3 + 100e-9));
    } else {
      CHECK(p.ranks[0].wall_s == Approx(5e-3 + transfer).epsilon(1e-6));
      CHECK(p.ranks[0].time.wait_s == Approx(5e-3).epsilon(1e-6));
      CHECK(p.ranks[1].wall_s == Approx(5e-3 + transfer).epsilon(1e-6));
    }
  }
}

TEST_CASE("simgrid: an Allreduce ends its cost after the last rank entered") {
  auto t = ranks(3);
  test::add_collective(t, Allreduce, CollectiveKind::n_to_n, {0, 100, 300}, 10'000);
  const auto p = simgrid(t, machine());
  CHECK(p.wall_s == Approx(2300e-9));
  CHECK(p.total.wait_s == Approx(500e-9));
  CHECK(p.total.latency_s == Approx(3 * 2000e-9));
  REQUIRE(p.sites.size() == 1);
  CHECK(p.sites[0].calls == 3);
}

TEST_CASE("simgrid: compute bursts take the CPU factor, and both engines agree on a ping-pong") {
  auto t = ranks(2);
  add(t, 0, Send, TraceRole::send, 0, 500, 1, 100);
  add(t, 0, Recv, TraceRole::recv, 600, 50'000, 1, 100);
  add(t, 1, Recv, TraceRole::recv, 0, 20'000, 0, 100);
  add(t, 1, Send, TraceRole::send, 30'000, 30'500, 0, 100);  // 10 us of compute before
  for (const double scale : {1.0, 2.0}) {
    auto in = machine();
    in.cpu_scale = scale;
    const auto a = simgrid(t, in);
    const auto b = replay(t, in);
    INFO("CPU x" << scale);
    CHECK(a.ranks[1].time.compute_s == Approx(10e-6 * scale));
    CHECK(a.wall_s == Approx(b.wall_s).epsilon(1e-6));
    CHECK(a.ranks[0].time.wait_s == Approx(b.ranks[0].time.wait_s).epsilon(1e-4));
  }
}

TEST_CASE("simgrid: a trace that blocks the replay is an error, not a hang") {
  auto t = ranks(2);
  add(t, 0, Recv, TraceRole::recv, 0, 100, 1, 100'000);
  add(t, 0, Send, TraceRole::send, 200, 300, 1, 100'000);
  add(t, 1, Recv, TraceRole::recv, 0, 100, 0, 100'000);
  add(t, 1, Send, TraceRole::send, 200, 300, 0, 100'000);
  CHECK_THROWS_AS(simgrid(t, machine()), analysis::EngineError);
}

TEST_CASE("model: a curve's fixed part is its segment's intercept") {
  const model::CostCurve c{{{0, 10e-6}, {1000, 20e-6}, {2000, 60e-6}}};
  CHECK(c.fixed_part(0) == Approx(10e-6));
  CHECK(c.fixed_part(500) == Approx(10e-6));
  CHECK(c.fixed_part(1500) == Approx(0.0).margin(1e-12));  // -20 us, clamped
  CHECK(c.fixed_part(3000) == Approx(0.0).margin(1e-12));
  const model::CostCurve flat{{{0, 5e-6}}};
  CHECK(flat.fixed_part(100) == Approx(5e-6));
}

TEST_CASE("simgrid: a send the target returns early from leaves its transfer behind") {
  // Over TCP a rendezvous send returns once its data is in the socket's buffer: the
  // model's blocking send takes 20 us whatever the size. Rank 1 posts its receive at
  // 5 ms: the send ends 20 us after, the receive when the data is there.
  auto t = ranks(2);
  add(t, 0, Send, TraceRole::send, 0, 100, 1, 100'000);
  add(t, 0, Compute, TraceRole::other, 200, 300);
  add(t, 1, Recv, TraceRole::recv, 5'000'000, 5'000'100, 0, 100'000);
  auto in = machine();
  in.machine.messages->blocking_send = model::CostCurve{{{0, 20e-6}}};
  const auto p = simgrid(t, in);
  const double transfer = in.machine.p2p.at(100'000);
  CHECK(p.ranks[0].wall_s == Approx(5e-3 + 20e-6 + 200e-9).epsilon(1e-6));
  CHECK(p.ranks[1].wall_s == Approx(5e-3 + transfer).epsilon(1e-6));
  // Without the curve (earlier probes) the send is held until its transfer ends.
  in.machine.messages->blocking_send.reset();
  CHECK(simgrid(t, in).ranks[0].wall_s > 5e-3 + transfer);
}

TEST_CASE("simgrid: a transfer moves on while its sender waits in a collective") {
  // Rank 0 starts a 100 kB Isend to rank 1, then waits in an Allreduce for rank 2,
  // which enters at 5 ms; rank 1 receives it meanwhile, then joins the Allreduce.
  auto t = ranks(3);
  auto allreduce = [&](int r, std::int64_t enter) {
    auto& rec = add(t, r, Allreduce, TraceRole::collective, enter, 6'000'000);
    rec.comm = 1;
    rec.collective_kind = static_cast<std::uint8_t>(CollectiveKind::n_to_n);
  };
  add(t, 0, Isend, TraceRole::isend, 0, 100, 1, 100'000).sequence = 1;
  allreduce(0, 200);
  add(t, 0, Wait, TraceRole::completion, 6'000'100, 6'000'200, 1, 100'000).sequence = 1;
  add(t, 1, Recv, TraceRole::recv, 0, 4'100'000, 0, 100'000);
  allreduce(1, 4'100'100);
  allreduce(2, 5'000'000);
  const auto in = machine();
  const auto p = simgrid(t, in);
  CHECK(p.ranks[1].time.compute_s == Approx(100e-9));
  // Rank 1's receive ends the transfer after the Isend, not after the Allreduce.
  double received = 0;
  for (const auto& site : p.sites) {
    if (site.function == Recv) received = site.time.mpi_s();
  }
  CHECK(received == Approx(in.machine.p2p.at(100'000) + 100e-9).epsilon(1e-4));
  CHECK(p.wall_s == Approx(5e-3 + 2e-6 + 100e-9 + 100e-9).epsilon(1e-4));
}

TEST_CASE("simgrid: a Sendrecv exchange both ways costs the target's measured exchange") {
  // Both ranks exchange 100 kB by MPI_Sendrecv, entering at 0 and 2 us: each ends
  // the measured exchange (3 ms at 100 kB, below the 4 ms one way: copies overlapping)
  // after the later enter, as mpidle's replay.
  auto t = ranks(2);
  for (int r = 0; r < 2; ++r) {
    add(t, r, Sendrecv, TraceRole::recv, 2000 * r, 9'000'000, 1 - r, 200'000);
    add(t, r, Sendrecv, TraceRole::send, 2000 * r, 9'000'000, 1 - r, 100'000).extra = 1;
  }
  auto in = machine();
  in.machine.messages->exchange = model::CostCurve{{{0, 20e-6}, {100'000, 3e-3}}};
  const auto a = simgrid(t, in);
  CHECK(a.ranks[0].wall_s == Approx(2e-6 + 3e-3).epsilon(1e-6));
  CHECK(a.ranks[1].wall_s == Approx(2e-6 + 3e-3).epsilon(1e-6));
  CHECK(a.ranks[0].time.wait_s == Approx(2e-6).epsilon(1e-3));
  CHECK(a.wall_s == Approx(replay(t, in).wall_s).epsilon(1e-6));
  // An exchange measured slower than one way (queues behind back-to-back exchanges)
  // leaves it to the links: split-duplex, one way per direction at once.
  in.machine.messages->exchange = model::CostCurve{{{0, 20e-6}, {100'000, 6e-3}}};
  CHECK(simgrid(t, in).ranks[0].wall_s == Approx(2e-6 + in.machine.p2p.at(100'000)).epsilon(1e-3));
}
