// Collective partners judged at home processes (sync/window_partners) against the
// parallel replay's: on traces with every collective kind, sub-communicators and
// non-blocking collectives, the same wait reference for every member.
#include <catch2/catch.hpp>

#include <map>

#include "generated_traces.hpp"
#include "sync/trace_sync.hpp"
#include "sync/window_partners.hpp"

using namespace mpidle;
using model::CollectiveKind;
using sync::CollectiveReport;
using sync::CollectiveVerdict;

namespace {

CollectiveReport report(std::int32_t rank, std::int64_t enter, CollectiveKind kind,
                        std::int32_t members, std::int32_t root = model::kTraceNoRoot) {
  CollectiveReport r;
  r.comm = 3;
  r.instance = 11;
  r.item = static_cast<std::uint32_t>(rank);
  r.rank = rank;
  r.order = rank;
  r.root = root;
  r.members = members;
  r.kind = static_cast<std::uint8_t>(kind);
  r.whole = 1;
  r.enter_ns = {enter, enter};
  r.exit_ns = {enter + 10000, enter + 10000};
  return r;
}

std::map<std::int32_t, CollectiveVerdict> by_rank(const std::vector<CollectiveVerdict>& v) {
  std::map<std::int32_t, CollectiveVerdict> out;
  for (const auto& x : v) out[x.rank] = x;
  return out;
}

}  // namespace

TEST_CASE("window partners: each collective kind waits for whom analyze_wait_states says",
          "[sync]") {
  std::uint64_t complete = 0;
  SECTION("N to N: everyone until the last enters") {
    auto v = by_rank(sync::judge_collectives(
        {report(0, 100, CollectiveKind::n_to_n, 3), report(2, 300, CollectiveKind::n_to_n, 3),
         report(1, 200, CollectiveKind::n_to_n, 3)},
        &complete));
    CHECK(complete == 1);
    for (int r = 0; r < 3; ++r) {
      CHECK(v[r].until[0] == 300);
      CHECK(v[r].complete == 1);
    }
    // Who each waited for (the root causes' partner): the last, who waited for nobody.
    CHECK(v[0].cause_rank[0] == 2);
    CHECK(v[1].cause_rank[0] == 2);
    CHECK(v[2].cause_rank[0] == -1);
  }
  SECTION("1 to N: the others until the root enters; the root waits for nobody") {
    auto v = by_rank(sync::judge_collectives({report(0, 100, CollectiveKind::one_to_n, 2, 1),
                                              report(1, 250, CollectiveKind::one_to_n, 2, 1)},
                                             &complete));
    CHECK(v[0].until[0] == 250);
    CHECK(v[1].until[0] == sync::kClcNever);
    CHECK(v[0].cause_rank[0] == 1);
    CHECK(v[1].cause_rank[0] == -1);
  }
  SECTION("N to 1: the root until the first sender enters") {
    auto v = by_rank(sync::judge_collectives({report(0, 100, CollectiveKind::n_to_one, 3, 0),
                                              report(1, 400, CollectiveKind::n_to_one, 3, 0),
                                              report(2, 250, CollectiveKind::n_to_one, 3, 0)},
                                             &complete));
    CHECK(v[0].until[0] == 250);
    CHECK(v[1].until[0] == sync::kClcNever);
    CHECK(v[2].until[0] == sync::kClcNever);
    CHECK(v[0].cause_rank[0] == 2);
  }
  SECTION("scan: each member until the latest before it in the communicator's order") {
    auto a = report(5, 300, CollectiveKind::scan, 3), b = report(6, 100, CollectiveKind::scan, 3),
         c = report(7, 200, CollectiveKind::scan, 3);
    a.order = 0;
    b.order = 1;
    c.order = 2;
    auto v = by_rank(sync::judge_collectives({c, a, b}, &complete));
    CHECK(v[5].until[0] == sync::kClcNever);
    CHECK(v[6].until[0] == 300);
    CHECK(v[7].until[0] == 300);
  }
  SECTION("a member missing, or one that did not block: nobody is judged") {
    auto partial = by_rank(sync::judge_collectives(
        {report(0, 100, CollectiveKind::n_to_n, 3), report(1, 200, CollectiveKind::n_to_n, 3)},
        &complete));
    auto started = report(1, 200, CollectiveKind::n_to_n, 2);
    started.whole = 0;
    auto nonblocking = by_rank(
        sync::judge_collectives({report(0, 100, CollectiveKind::n_to_n, 2), started}, &complete));
    CHECK(complete == 0);
    for (auto* v : {&partial, &nonblocking}) {
      for (auto& [rank, verdict] : *v) {
        CHECK(verdict.until[0] == sync::kClcNever);
        CHECK(verdict.complete == 0);
      }
    }
  }
}

TEST_CASE("window partners: each clock is judged apart, and its violations counted", "[sync]") {
  // On the reference clock rank 1 enters after rank 0 has left (an offset measured
  // wrong); on the raw clocks it does not.
  auto a = report(0, 100, CollectiveKind::n_to_n, 2), b = report(1, 150, CollectiveKind::n_to_n, 2);
  a.exit_ns = {200, 200};
  b.enter_ns = {260, 150};
  b.exit_ns = {300, 210};
  std::uint64_t complete = 0;
  std::array<std::uint64_t, 2> violations{};
  auto v = by_rank(sync::judge_collectives({a, b}, &complete, &violations));
  CHECK(violations[sync::kReferenceClock] == 1);
  CHECK(violations[sync::kRawClock] == 0);
  CHECK(v[0].until[sync::kReferenceClock] == 260);
  CHECK(v[0].until[sync::kRawClock] == 150);
  sync::RankPartners p;
  p.items.collectives.resize(1);
  sync::apply_verdicts(p, {v[0]}, sync::kRawClock);
  CHECK(p.until[0] == 150);
  CHECK(p.complete[0] == 1);
}

TEST_CASE(
    "window partners: the last to enter may leave at once, the others only a latency after it",
    "[sync]") {
  // Rank 1 enters last and leaves 5 ns later (the others' data had arrived): no
  // condition broken. Rank 0 leaves 10 ns after rank 1 entered, under the 20 ns
  // latency on the reference clock only.
  auto a = report(0, 100, CollectiveKind::n_to_n, 2), b = report(1, 150, CollectiveKind::n_to_n, 2);
  a.exit_ns = {160, 175};
  b.exit_ns = {155, 155};
  std::uint64_t complete = 0;
  std::array<std::uint64_t, 2> violations{};
  sync::judge_collectives({a, b}, &complete, &violations, 20);
  CHECK(violations[sync::kReferenceClock] == 1);
  CHECK(violations[sync::kRawClock] == 0);
  // The root of a Reduce needs every sender's data; a Bcast's root needs nobody's.
  auto root = report(0, 100, CollectiveKind::n_to_one, 3, 0);
  root.exit_ns = {140, 140};
  auto s1 = report(1, 130, CollectiveKind::n_to_one, 3, 0),
       s2 = report(2, 90, CollectiveKind::n_to_one, 3, 0);
  s1.exit_ns = s2.exit_ns = {131, 131};
  violations = {};
  sync::judge_collectives({root, s1, s2}, &complete, &violations, 20);
  CHECK(violations[sync::kRawClock] == 1);
  auto bcast_root = report(0, 100, CollectiveKind::one_to_n, 2, 0);
  bcast_root.exit_ns = {101, 101};
  auto leaf = report(1, 50, CollectiveKind::one_to_n, 2, 0);
  leaf.exit_ns = {125, 125};
  violations = {};
  sync::judge_collectives({bcast_root, leaf}, &complete, &violations, 20);
  CHECK(violations[sync::kRawClock] == 0);
}

TEST_CASE("window partners: home processes give the replay's collective partners", "[sync]") {
  for (const std::uint32_t ranks : {2u, 3u, 5u, 16u}) {
    model::Trace trace = test::generated(ranks, 41 + ranks, 40);
    std::vector<sync::RankPartners> replayed;
    std::uint64_t replay_complete = 0;
    sync::synchronize_trace_by_replay(trace, sync::ClcParams{.min_latency_ns = -1}, 2, &replayed,
                                      &replay_complete);
    REQUIRE(replayed.size() == ranks);
    for (const int processes : {1, 3, 7}) {
      INFO(ranks << " ranks, " << processes << " home processes");
      // Every rank reports to the homes; each home judges what it got.
      std::map<int, std::vector<CollectiveReport>> at_home;
      for (std::uint32_t r = 0; r < ranks; ++r) {
        for (const auto& rep :
             sync::collective_reports(trace.ranks[r], trace.ranks[r].synced, replayed[r].items)) {
          at_home[sync::home_of(rep.comm, rep.instance, processes)].push_back(rep);
        }
      }
      std::uint64_t complete = 0;
      std::map<std::int32_t, std::vector<CollectiveVerdict>> verdicts;
      for (auto& [home, reports] : at_home) {
        // Through the wire form, as the exchange carries them.
        model::ByteWriter w;
        sync::write_reports(w, reports);
        const auto bytes = w.take();
        model::ByteReader r(bytes);
        std::vector<CollectiveReport> received;
        REQUIRE(sync::read_reports(r, received));
        for (const auto& v : sync::judge_collectives(received, &complete)) {
          verdicts[v.rank].push_back(v);
        }
      }
      CHECK(complete == replay_complete);
      CHECK(complete > 0);
      std::size_t judged = 0;
      for (std::uint32_t r = 0; r < ranks; ++r) {
        sync::RankPartners mine;
        mine.items = replayed[r].items;
        model::ByteWriter w;
        sync::write_verdicts(w, verdicts[static_cast<std::int32_t>(r)]);
        const auto bytes = w.take();
        model::ByteReader reader(bytes);
        std::vector<CollectiveVerdict> back;
        REQUIRE(sync::read_verdicts(reader, back));
        sync::apply_verdicts(mine, back, sync::kReferenceClock);
        REQUIRE(mine.until.size() == replayed[r].until.size());
        for (std::size_t i = 0; i < mine.until.size(); ++i) {
          INFO("rank " << r << ", collective item " << i);
          CHECK(mine.until[i] == replayed[r].until[i]);
          CHECK(mine.complete[i] == replayed[r].complete[i]);
          judged += mine.until[i] != sync::kClcNever;
        }
      }
      CHECK(judged > 0);
    }
  }
  const std::vector<std::byte> short_buffer(5);
  model::ByteReader r(short_buffer);
  std::vector<CollectiveReport> none;
  CHECK_FALSE(sync::read_reports(r, none));
}
