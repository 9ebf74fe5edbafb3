// One rank's part of the windows' pairing (sync/window_pairing), with no MPI: the
// ranks are simulated here and their parcels handed from one to the other as the
// finalize's sparse exchange would. Times are set by construction on one clock,
// so which send each receive took, and which calls a window edge cuts off, are
// known.
#include <catch2/catch.hpp>

#include <map>

#include "model/trace_file.hpp"
#include "sync/window_pairing.hpp"

using namespace mpidle;
using model::TraceRole;

namespace {

constexpr std::int64_t kUs = 1000, kMs = 1'000'000;
constexpr std::int32_t kTag = 5;

model::TraceRecord record(TraceRole role, std::int64_t enter, std::int64_t exit, int peer,
                          std::uint32_t function) {
  model::TraceRecord r;
  r.role = role;
  r.enter_ns = enter;
  r.exit_ns = exit;
  r.peer = peer;
  r.tag = kTag;
  r.bytes = 64;
  r.function = function;
  return r;
}

// Rank 0 sends to rank 1 at `sends` (each call 10 µs); rank 1 receives in calls
// [enter, exit] of `receives`. Both read one clock (offsets 0).
struct TwoRanks {
  model::Trace tables;
  model::RankTrace sender, receiver;
  TwoRanks(const std::vector<std::int64_t>& sends,
           const std::vector<std::pair<std::int64_t, std::int64_t>>& receives) {
    tables.functions = {"MPI_Send", "MPI_Recv"};
    tables.callsites = {model::Callsite{}};
    sender.rank = 0;
    receiver.rank = 1;
    for (std::int64_t t : sends)
      sender.records.push_back(record(TraceRole::send, t, t + 10 * kUs, 1, 0));
    for (auto [enter, exit] : receives)
      receiver.records.push_back(record(TraceRole::recv, enter, exit, 0, 1));
  }
};

// What each rank received, by sender: the parcels of `out` (by sending rank) routed.
std::vector<sync::Parcels> route(const std::vector<sync::Parcels>& out) {
  std::vector<sync::Parcels> in(out.size());
  for (std::size_t from = 0; from < out.size(); ++from) {
    for (const auto& [to, bytes] : out[from])
      in.at(static_cast<std::size_t>(to)).emplace_back(static_cast<int>(from), bytes);
  }
  return in;
}

// Steps 1 to 4 on both ranks with windows opening at `openings`; returns each
// rank's partners on the reference clock.
std::vector<sync::RankPartners> pair(TwoRanks& run, const std::vector<std::int64_t>& openings) {
  std::vector<sync::WindowPairing> ranks;
  ranks.emplace_back(run.tables, run.sender, model::WindowOpenings{openings}, 0, 2);
  ranks.emplace_back(run.tables, run.receiver, model::WindowOpenings{openings}, 0, 2);
  std::vector<sync::Parcels> sends, answers;
  for (auto& r : ranks) sends.push_back(r.sends_by_destination());
  const auto told = route(sends);
  for (std::size_t r = 0; r < ranks.size(); ++r) answers.push_back(ranks[r].pair_receives(told[r]));
  const auto answered = route(answers);
  std::vector<sync::RankPartners> partners;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    ranks[r].apply_answers(answered[r]);
    ranks[r].separate_windows();
    partners.push_back(ranks[r].partners(sync::kReferenceClock));
  }
  return partners;
}

// The partner times of one channel (0 → 1) in window `window`.
std::vector<std::int64_t> times(
    const std::map<sync::ChannelKey, model::LargeArray<std::int64_t>>& by_channel,
    std::uint32_t window) {
  auto it = by_channel.find(sync::ChannelKey{sync::window_comm(0, window), 0, 1, kTag});
  if (it == by_channel.end()) return {};
  return std::vector<std::int64_t>(it->second.begin(), it->second.end());
}

}  // namespace

TEST_CASE("window pairing: each receive learns its send's enter, each send its receive's posting",
          "[sync]") {
  // Messages at 1, 2, 3, 4 ms; each receive posted 200 µs before and done 50 µs
  // after its send. Windows open at 0 and 2.6 ms: two messages in each.
  TwoRanks run({1 * kMs, 2 * kMs, 3 * kMs, 4 * kMs}, {{1 * kMs - 200 * kUs, 1 * kMs + 50 * kUs},
                                                      {2 * kMs - 200 * kUs, 2 * kMs + 50 * kUs},
                                                      {3 * kMs - 200 * kUs, 3 * kMs + 50 * kUs},
                                                      {4 * kMs - 200 * kUs, 4 * kMs + 50 * kUs}});
  const auto partners = pair(run, {0, 2600 * kUs});
  CHECK(times(partners[1].send_enter, 0) == std::vector<std::int64_t>{1 * kMs, 2 * kMs});
  CHECK(times(partners[1].send_enter, 1) == std::vector<std::int64_t>{3 * kMs, 4 * kMs});
  CHECK(times(partners[0].posted_enter, 0) ==
        std::vector<std::int64_t>{1 * kMs - 200 * kUs, 2 * kMs - 200 * kUs});
  CHECK(times(partners[0].posted_enter, 1) ==
        std::vector<std::int64_t>{3 * kMs - 200 * kUs, 4 * kMs - 200 * kUs});
  // Nothing was left out, and every record's channel is its window's own.
  for (const auto* rank : {&run.sender, &run.receiver}) {
    for (std::size_t i = 0; i < rank->records.size(); ++i) {
      CHECK(rank->records[i].role != TraceRole::other);
      CHECK(rank->records[i].comm == sync::window_comm(0, i < 2 ? 0 : 1));
    }
  }
}

TEST_CASE("window pairing: a message in flight across a window edge is left out on both sides",
          "[sync]") {
  // The third message is sent at 2.5 ms, in window 0, and received in window 1
  // (posted at 2.7 ms): neither window holds both its ends.
  TwoRanks run({1 * kMs, 2 * kMs, 2500 * kUs, 4 * kMs},
               {{1 * kMs - 200 * kUs, 1 * kMs + 50 * kUs},
                {2 * kMs - 200 * kUs, 2 * kMs + 50 * kUs},
                {2700 * kUs, 2750 * kUs},
                {4 * kMs - 200 * kUs, 4 * kMs + 50 * kUs}});
  const auto partners = pair(run, {0, 2600 * kUs});
  CHECK(run.sender.records[2].role == TraceRole::other);
  CHECK(run.receiver.records[2].role == TraceRole::other);
  for (std::size_t i : {0, 1, 3}) {
    CHECK(run.sender.records[i].role == TraceRole::send);
    CHECK(run.receiver.records[i].role == TraceRole::recv);
  }
  CHECK(times(partners[1].send_enter, 0) == std::vector<std::int64_t>{1 * kMs, 2 * kMs});
  CHECK(times(partners[1].send_enter, 1) == std::vector<std::int64_t>{4 * kMs});
  CHECK(times(partners[0].posted_enter, 1) == std::vector<std::int64_t>{4 * kMs - 200 * kUs});
}

TEST_CASE("window pairing: a receive that ends before its send began breaks the clock condition",
          "[sync]") {
  // The receive's clock reads 30 µs early: it seems to end before the send began.
  TwoRanks run({1 * kMs}, {{1 * kMs - 200 * kUs, 1 * kMs - 30 * kUs}});
  sync::WindowPairing sender(run.tables, run.sender, model::WindowOpenings{{0}}, 0, 2);
  sync::WindowPairing receiver(run.tables, run.receiver, model::WindowOpenings{{0}}, 0, 2);
  const auto told = route({sender.sends_by_destination(), {}});
  receiver.pair_receives(told[1]);
  // No shift pairs it: the receive is left out, and no violation is counted for a
  // pair that was never made.
  CHECK(run.receiver.records[0].role == TraceRole::other);
  CHECK(receiver.violations() == std::array<std::uint64_t, 2>{0, 0});
}

TEST_CASE("window pairing: unreadable parcels are refused, not read past their end", "[sync]") {
  TwoRanks run({1 * kMs}, {{1 * kMs - 200 * kUs, 1 * kMs + 50 * kUs}});
  sync::WindowPairing receiver(run.tables, run.receiver, model::WindowOpenings{{0}}, 0, 2);
  sync::Parcels garbage{{0, std::vector<std::byte>(3, std::byte{0xff})}};
  CHECK_THROWS_AS(receiver.pair_receives(garbage), model::TraceError);
  sync::WindowPairing sender(run.tables, run.sender, model::WindowOpenings{{0}}, 0, 2);
  sender.sends_by_destination();
  CHECK_THROWS_AS(sender.apply_answers(garbage), model::TraceError);
}
