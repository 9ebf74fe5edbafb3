#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "sync/trace_matching.hpp"
#include "sync/trace_sync.hpp"

using namespace mpidle;
using model::CollectiveKind;
using model::TraceRecord;
using model::TraceRole;

namespace {
TraceRecord record(TraceRole role, std::int64_t enter, std::int64_t exit, std::int32_t peer = -1,
                   std::int32_t tag = 0) {
  TraceRecord r;
  r.role = role;
  r.enter_ns = enter;
  r.exit_ns = exit;
  r.peer = peer;
  r.tag = tag;
  return r;
}

model::Trace two_ranks() {
  model::Trace t;
  t.functions = {"f"};
  t.callsites = {model::Callsite{}};
  t.ranks.resize(2);
  t.ranks[0].rank = 0;
  t.ranks[1].rank = 1;
  return t;
}
}  // namespace

TEST_CASE("messages match in non-overtaking order per (comm, source, dest, tag)", "[sync]") {
  auto t = two_ranks();
  // Rank 0 sends tag 1, tag 2, tag 1; rank 1 receives tag 2 first, then tag 1 twice.
  t.ranks[0].records = {record(TraceRole::send, 100, 110, 1, 1),
                        record(TraceRole::send, 200, 210, 1, 2),
                        record(TraceRole::send, 300, 310, 1, 1)};
  t.ranks[1].records = {record(TraceRole::recv, 50, 220, 0, 2),
                        record(TraceRole::recv, 230, 240, 0, 1),
                        record(TraceRole::recv, 250, 320, 0, 1)};
  const auto g = sync::build_event_graph(t);
  REQUIRE(g.edges().size() == 3);
  auto edge_to = [&](std::uint32_t recv_record) {
    for (const auto& e : g.edges()) {
      if (e.to == g.node({1, 2 * recv_record + 1})) return e.from;
    }
    return sync::EventGraph::NodeId(~0u);
  };
  CHECK(edge_to(0) == g.node({0, 2}));  // tag 2 ← the second send
  CHECK(edge_to(1) == g.node({0, 0}));  // first tag 1 ← first tag-1 send
  CHECK(edge_to(2) == g.node({0, 4}));
}

TEST_CASE("non-blocking receives match by posting order, complete at their wait", "[sync]") {
  auto t = two_ranks();
  t.ranks[0].records = {record(TraceRole::isend, 100, 101, 1, 5),
                        record(TraceRole::isend, 102, 103, 1, 5)};
  auto irecv_a = record(TraceRole::irecv, 10, 11, -1, -1);
  irecv_a.sequence = 1;
  auto irecv_b = record(TraceRole::irecv, 12, 13, -1, -1);
  irecv_b.sequence = 2;
  // Completed in the other order, with ANY_SOURCE resolved from the status.
  auto done_b = record(TraceRole::completion, 20, 30, 0, 5);
  done_b.sequence = 2;
  auto done_a = record(TraceRole::completion, 20, 30, 0, 5);
  done_a.sequence = 1;
  t.ranks[1].records = {irecv_a, irecv_b, done_b, done_a};
  const auto g = sync::build_event_graph(t);
  REQUIRE(g.edges().size() == 2);
  for (const auto& e : g.edges()) {
    // The first posted receive (completed by record 3) takes the first send.
    if (e.to == g.node({1, 2 * 3 + 1})) CHECK(e.from == g.node({0, 0}));
    if (e.to == g.node({1, 2 * 2 + 1})) CHECK(e.from == g.node({0, 2}));
  }
}

TEST_CASE("collective instances join their members across ranks", "[sync]") {
  auto t = two_ranks();
  auto bcast = [](std::int64_t enter, std::int64_t exit) {
    auto r = record(TraceRole::collective, enter, exit);
    r.comm = 3;
    r.sequence = 0;
    r.root = 0;
    r.collective_kind = static_cast<std::uint8_t>(CollectiveKind::one_to_n);
    return r;
  };
  t.ranks[0].records = {bcast(100, 120)};
  t.ranks[1].records = {bcast(10, 50)};  // left the Bcast before the root entered
  auto result = sync::synchronize_trace(t, sync::ClcParams{});
  CHECK(result.clc.violations_before == 1);
  CHECK(result.clc.violations_after == 0);
  REQUIRE(t.ranks[1].synced.size() == 2);
  CHECK(t.ranks[1].synced[1] >= t.ranks[0].synced[0]);
}

TEST_CASE("collective instance numbers that wrap past 2^32 stay distinct instances", "[sync]") {
  // A long run's 32-bit instance numbers wrap: the instance after 0xFFFFFF00 may
  // be numbered 7 again, and must not join the first instance numbered 7.
  auto t = two_ranks();
  const std::uint32_t numbers[] = {7, 0x7FFFFFF0u, 0xFFFFFF00u, 7};
  for (std::int32_t rank = 0; rank < 2; ++rank) {
    std::int64_t at = 0;
    for (const auto n : numbers) {
      auto r = record(TraceRole::collective, at, at + 10);
      r.comm = 3;
      r.sequence = n;
      r.collective_kind = static_cast<std::uint8_t>(CollectiveKind::n_to_n);
      t.ranks[static_cast<std::size_t>(rank)].records.push_back(r);
      at += 100;
    }
  }
  const auto matching = sync::match_trace(t);
  REQUIRE(matching.collectives.size() == 4);
  std::vector<std::uint64_t> first_members;
  for (const auto& c : matching.collectives) {
    CHECK(c.complete());
    REQUIRE(c.members.size() == 2);
    CHECK(c.members[0].enter.record == c.members[1].enter.record);
    first_members.push_back(c.members[0].enter.record);
  }
  std::sort(first_members.begin(), first_members.end());
  CHECK(first_members == std::vector<std::uint64_t>{0, 1, 2, 3});
}

TEST_CASE("synchronizing a trace applies the measured offsets first", "[sync]") {
  auto t = two_ranks();
  // Rank 1's clock is 1 ms ahead at both measurements; with that removed, its
  // receive comes 5 µs after rank 0's send and nothing has to move.
  t.ranks[1].init = {1'000'000, 1000, 0};
  t.ranks[1].final = {1'000'000, 1000, 10'000'000};
  t.ranks[0].records = {record(TraceRole::send, 100'000, 101'000, 1, 0)};
  t.ranks[1].records = {record(TraceRole::recv, 1'090'000, 1'105'000, 0, 0)};
  t.min_latency_ns = 1000;
  const auto result = sync::synchronize_trace(t, sync::ClcParams{.min_latency_ns = -1});
  CHECK(result.clc.violations_before == 0);
  CHECK(result.clc.events_moved == 0);
  CHECK(t.ranks[1].synced == model::LargeArray<std::int64_t>{90'000, 105'000});
}

TEST_CASE("a Sendrecv exchange is no cycle: its send half happens at the call's enter", "[sync]") {
  // Both ranks exchange with MPI_Sendrecv: the call's record is the receive, a
  // further record after it is the send half, with the call's times.
  auto t = two_ranks();
  for (std::int32_t r = 0; r < 2; ++r) {
    for (std::int64_t i = 0; i < 3; ++i) {
      const std::int64_t enter = 1000 * i + 10 * r, exit = enter + 500;
      t.ranks[r].records.push_back(record(TraceRole::recv, enter, exit, 1 - r, 7));
      auto send = record(TraceRole::send, enter, exit, 1 - r, 7);
      send.extra = 1;
      t.ranks[r].records.push_back(send);
    }
  }
  const auto g = sync::build_event_graph(t);
  std::size_t messages = 0;
  for (const auto& e : g.edges()) {
    if (!e.message) continue;
    ++messages;
    // From the enter of a call record (even record index), to a receive's exit.
    CHECK(((e.from - g.first_node(e.from >= g.first_node(1) ? 1 : 0)) % 4) == 0);
  }
  CHECK(messages == 6);
  t.min_latency_ns = 100;
  const auto result = sync::synchronize_trace(t, sync::ClcParams{.min_latency_ns = -1});
  CHECK(result.clc.unresolved == 0);
  CHECK(result.clc.violations_after == 0);
}
