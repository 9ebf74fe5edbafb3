#include <catch2/catch.hpp>

#include <random>

#include "sync/clock_offset.hpp"
#include "sync/controlled_clock.hpp"
#include "sync/offset_model.hpp"

using namespace mpidle::sync;

namespace {
ClcParams params(std::int64_t latency) {
  ClcParams p;
  p.min_latency_ns = latency;
  return p;
}
}  // namespace

TEST_CASE("a single late receive moves to send + latency, and so does what follows", "[sync]") {
  RankTimes t = {{100}, {80, 90, 200}};
  EventGraph g({1, 3});
  g.message({0, 0}, {1, 1});
  const auto s = synchronize(g, t, params(5));
  CHECK(s.violations_before == 1);
  CHECK(s.violations_after == 0);
  CHECK(t[0][0] == 100);  // the send stays
  CHECK(t[1][1] == 105);  // the receive: send + latency
  // The next event keeps its interval (110 ns) scaled by γ: 105 + 109.
  CHECK(t[1][2] == 105 + 109);
  // Backward amortization: the event before the receive moves a little (never
  // past the receive), spread over 15 ns / 1 % = 1.5 µs before it.
  CHECK(t[1][0] > 80);
  CHECK(t[1][0] < t[1][1]);
  CHECK(t[1][0] == 80 + 14);
  CHECK(s.events_moved == 3);
  CHECK(s.max_shift_ns == 15);
}

TEST_CASE("a chain of violations across three ranks is repaired in causal order", "[sync]") {
  // rank 0 sends to rank 1 (received "before" it was sent); rank 1 then sends to
  // rank 2, whose receive is also too early once rank 1 has moved.
  RankTimes t = {{100}, {50, 60}, {70}};
  EventGraph g({1, 2, 1});
  g.message({0, 0}, {1, 0});
  g.message({1, 1}, {2, 0});
  const auto s = synchronize(g, t, params(10));
  CHECK(s.violations_before == 1);  // rank 2's receive is fine until rank 1 moves
  CHECK(s.violations_after == 0);
  CHECK(t[1][0] == 110);
  CHECK(t[1][1] == 110 + 9);  // γ·10, rounded down
  CHECK(t[2][0] == t[1][1] + 10);
}

TEST_CASE("collectives: 1-to-N, N-to-1, N-to-N and scans", "[sync]") {
  SECTION("Bcast: every exit after the root's enter") {
    RankTimes t = {{100, 130}, {20, 90}, {30, 140}};  // (enter, exit) per rank
    EventGraph g({2, 2, 2});
    const std::vector<EventRef> exits = {{0, 1}, {1, 1}, {2, 1}};
    g.one_to_n({0, 0}, exits);
    const auto s = synchronize(g, t, params(5));
    CHECK(s.violations_before == 1);
    CHECK(s.violations_after == 0);
    CHECK(t[1][1] == 105);
    CHECK(t[2][1] == 140);  // was already late enough
  }
  SECTION("Reduce: the root's exit after every enter") {
    RankTimes t = {{100, 120}, {200, 210}, {150, 160}};
    EventGraph g({2, 2, 2});
    const std::vector<EventRef> enters = {{0, 0}, {1, 0}, {2, 0}};
    g.n_to_one(enters, {0, 1});
    const auto s = synchronize(g, t, params(5));
    CHECK(s.violations_before == 1);
    CHECK(t[0][1] == 205);
    CHECK(s.violations_after == 0);
  }
  SECTION("Allreduce/Barrier: every exit after every enter") {
    RankTimes t = {{100, 310}, {300, 320}, {200, 150 + 100}};
    t[1] = {300, 320};
    t[2] = {200, 250};
    t[0] = {100, 290};
    EventGraph g({2, 2, 2});
    const std::vector<EventRef> enters = {{0, 0}, {1, 0}, {2, 0}};
    const std::vector<EventRef> exits = {{0, 1}, {1, 1}, {2, 1}};
    g.n_to_n(enters, exits);
    const auto s = synchronize(g, t, params(5));
    CHECK(s.violations_before == 2);
    CHECK(s.violations_after == 0);
    CHECK(t[0][1] == 305);
    CHECK(t[1][1] == 320);
    CHECK(t[2][1] == 305);
  }
  SECTION("Scan and Exscan: exit n after the enters of ranks before it") {
    const std::vector<EventRef> enters = {{0, 0}, {1, 0}, {2, 0}};
    const std::vector<std::optional<EventRef>> exits = {EventRef{0, 1}, EventRef{1, 1},
                                                        EventRef{2, 1}};
    RankTimes t = {{100, 105}, {50, 60}, {400, 410}};
    EventGraph scan({2, 2, 2});
    scan.scan(enters, exits, false);
    auto s = synchronize(scan, t, params(5));
    CHECK(s.violations_after == 0);
    CHECK(t[1][1] == 105);  // after rank 0's enter (100) + 5
    CHECK(t[2][1] == 410);  // its own enter is the latest: nothing to do

    RankTimes u = {{100, 105}, {50, 60}, {80, 90}};
    EventGraph exscan({2, 2, 2});
    exscan.scan(enters, exits, true);
    s = synchronize(exscan, u, params(5));
    CHECK(s.violations_after == 0);
    CHECK(u[0][1] == 105);  // rank 0 depends on nobody
    CHECK(u[1][1] == 105);  // rank 0 entered at 100
    CHECK(u[2][1] == 105);  // max(100, 50) + 5
  }
}

TEST_CASE("backward amortization never moves a send past its receive", "[sync]") {
  // Rank 1 sends to rank 0 at 1000 (received at 1005: no slack with 5 ns latency),
  // then receives from rank 2 far too early (1010 < 2000): a jump of 995 ns that
  // backward amortization would like to spread over the preceding 99.5 µs.
  RankTimes t = {{1005}, {1000, 1005, 1010}, {2000}};
  EventGraph g({1, 3, 1});
  g.message({1, 0}, {0, 0});
  g.message({2, 0}, {1, 2});
  const auto s = synchronize(g, t, params(5));
  CHECK(s.violations_after == 0);
  CHECK(t[1][2] == 2005);
  CHECK(t[1][0] == 1000);  // the send cannot move
  CHECK(t[0][0] >= t[1][0] + 5);
  CHECK(t[1][1] > 1005);  // the event after it takes part of the jump
  CHECK(t[1][1] < t[1][2]);
}

TEST_CASE("a trace without violations is left alone", "[sync]") {
  RankTimes t = {{100, 200}, {150, 250}};
  EventGraph g({2, 2});
  g.message({0, 0}, {1, 0});
  g.message({1, 1}, {0, 1});
  t[0][1] = 300;
  const RankTimes before = t;
  const auto s = synchronize(g, t, params(10));
  CHECK(s.violations_before == 0);
  CHECK(s.events_moved == 0);
  CHECK(t == before);
}

TEST_CASE("a dependency cycle (inconsistent trace) is broken, not looped on", "[sync]") {
  RankTimes t = {{100, 200}, {100, 200}};
  EventGraph g({2, 2});
  g.message({0, 1}, {1, 0});  // rank 1's first event waits for rank 0's second ...
  g.message({1, 1}, {0, 0});  // ... which comes after rank 0's first, which waits for rank 1
  const auto s = synchronize(g, t, params(1));
  CHECK(s.unresolved >= 1);
  CHECK(t[0][0] <= t[0][1]);
  CHECK(t[1][0] <= t[1][1]);
}

// Random message-passing runs on a true timeline, seen through clocks with known
// offsets and drifts, corrected by interpolation from imperfect measurements.
TEST_CASE("property: random traces with skewed clocks end with no violations", "[sync]") {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const std::uint32_t ranks = 2 + rng() % 7;
    const std::int64_t latency = 1000;
    // True event times per rank: local work, then messages to random partners.
    std::vector<std::vector<std::int64_t>> truth(ranks);
    std::vector<std::int64_t> now(ranks, 0);
    std::vector<std::pair<EventRef, EventRef>> messages;
    for (int m = 0; m < 400; ++m) {
      const std::uint32_t a = rng() % ranks;
      std::uint32_t b = rng() % ranks;
      if (a == b) b = (a + 1) % ranks;
      for (auto r : {a, b}) {  // some local events first
        for (int k = rng() % 3; k > 0; --k) truth[r].push_back(now[r] += 1 + rng() % 5000);
      }
      const std::int64_t send = now[a] += 1 + rng() % 2000;
      truth[a].push_back(send);
      const std::int64_t recv = now[b] =
          std::max(now[b] + 1, send + latency + static_cast<std::int64_t>(rng() % 3000));
      truth[b].push_back(recv);
      messages.push_back(
          {{a, std::uint32_t(truth[a].size() - 1)}, {b, std::uint32_t(truth[b].size() - 1)}});
    }
    // Clocks: offset up to ±1 ms, drift up to ±100 ppm; interpolation from
    // measurements that are each off by up to ±20 µs leaves residual errors.
    RankTimes corrected(ranks);
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const double offset = r == 0 ? 0 : static_cast<double>(rng() % 2'000'000) - 1e6;
      const double drift = r == 0 ? 0 : (static_cast<double>(rng() % 200) - 100) * 1e-6;
      auto local = [&](std::int64_t ref) {
        return static_cast<std::int64_t>(static_cast<double>(ref) * (1 + drift) + offset);
      };
      const std::int64_t t0 = truth[r].front(), t1 = truth[r].back();
      auto measured = [&](std::int64_t ref) {
        const std::int64_t error = r == 0 ? 0 : static_cast<std::int64_t>(rng() % 40'000) - 20'000;
        return OffsetEstimate{local(ref) - ref + error, 2000, ref};
      };
      const auto model = OffsetModel::from(measured(t0), measured(t1));
      for (auto ref : truth[r]) corrected[r].push_back(model.to_reference(local(ref)));
    }
    std::vector<std::size_t> sizes;
    for (const auto& r : corrected) sizes.push_back(r.size());
    EventGraph g(sizes);
    for (const auto& [send, recv] : messages) g.message(send, recv);

    const RankTimes input = corrected;
    ClcParams p;
    p.min_latency_ns = latency / 2;
    // Huge traces index the graph with 64 bits; it must give what 32 bits give.
    RankTimes wide = corrected;
    const auto s = synchronize(g, corrected, p);
    const auto s_wide = synchronize_indexed<std::uint64_t>(g, wide, p);
    CHECK(wide == corrected);
    CHECK(s_wide.violations_before == s.violations_before);
    CHECK(s_wide.events_moved == s.events_moved);
    CHECK(s.violations_before > 0);  // the residual skew really reorders messages
    CHECK(s.violations_after == 0);
    CHECK(count_violations(g, corrected) == 0);
    bool earlier = false, reordered = false, squeezed = false;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      for (std::size_t i = 0; i < corrected[r].size(); ++i) {
        earlier |= corrected[r][i] < input[r][i];
        if (i == 0) continue;
        const std::int64_t old_interval = input[r][i] - input[r][i - 1];
        const std::int64_t new_interval = corrected[r][i] - corrected[r][i - 1];
        reordered |= new_interval < 0 || (old_interval > 0 && new_interval <= 0);
        // Amortization bound: no local interval shrinks below γ × its length.
        squeezed |= new_interval + 1 <
                    static_cast<std::int64_t>(p.gamma * static_cast<double>(old_interval));
      }
    }
    CHECK_FALSE(earlier);
    CHECK_FALSE(reordered);
    CHECK_FALSE(squeezed);
    // Every message now arrives at least the minimum latency after it was sent.
    for (const auto& [send, recv] : messages) {
      CHECK(corrected[recv.rank][recv.index] >=
            corrected[send.rank][send.index] + p.min_latency_ns);
    }
  }
}
