#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/minima.hpp"
#include "model/profile_summary.hpp"
#include "model/table_merge.hpp"
#include "model/wait_baseline.hpp"

using namespace mpidle;

TEST_CASE("wait is time minus visits times the local minimum", "[model]") {
  const auto t = test::tables_for_rank(0, 6e-6, 1e-6);
  const model::Minima m(t);
  CHECK(m.local(0, 0, 4, 1) == 1e-6);
  CHECK(m.wait_local(0, t.ranks[0].entries[0]) == Approx(3e-6));  // 6 − 3×1
  CHECK(m.wait_local(0, t.ranks[0].entries[1]) == Approx(8e-6));  // 12 − 2×2
}

TEST_CASE("the local minimum spans callsites of the same function, size and peer", "[model]") {
  auto t = test::tables_for_rank(0, 6e-6, 1e-6);
  // Same (function, size class, peer) from the second callsite, with a smaller minimum.
  t.ranks[0].entries.push_back(model::Entry{1, 0, 4, 1, 2, 2e-6, 0.5e-6, 16});
  const model::Minima m(t);
  CHECK(m.local(0, 0, 4, 1) == 0.5e-6);
  CHECK(m.wait_local(0, t.ranks[0].entries[0]) == Approx(6e-6 - 3 * 0.5e-6));
  // Another peer or size class has its own minimum.
  t.ranks[0].entries.push_back(model::Entry{1, 0, 4, 2, 1, 9e-6, 9e-6, 8});
  const model::Minima m2(t);
  CHECK(m2.local(0, 0, 4, 2) == 9e-6);
  CHECK(m2.wait_local(0, t.ranks[0].entries.back()) == 0);
}

TEST_CASE("the global minimum exposes a rank that always waits", "[model]") {
  // Rank 0 never receives without waiting (min 5 µs); rank 1 shows the cost is 1 µs.
  auto t = test::tables_for_rank(0, 15e-6, 5e-6);
  model::merge_tables(t, test::tables_for_rank(1, 3e-6, 1e-6));
  const model::Minima m(t);
  const auto& waiting = t.ranks[0].entries[0];
  CHECK(m.wait_local(0, waiting) == Approx(0.0));
  CHECK(m.global(0, 4) == 1e-6);
  CHECK(m.wait_global(waiting) == Approx(12e-6));
}

TEST_CASE("rounding never yields negative wait", "[model]") {
  model::ProfileTables t;
  t.functions = {"MPI_Send"};
  t.callsites = {model::Callsite{{model::Frame{"/bin/app", 1, "", "", 0}}, {}}};
  model::RankData r;
  r.entries.push_back(model::Entry{0, 0, 1, 1, 3, 0.3, 0.1, 3});  // 0.3 − 3×0.1 < 0 in binary
  t.ranks.push_back(r);
  const model::Minima m(t);
  CHECK(m.wait_local(0, t.ranks[0].entries[0]) >= 0.0);
}

namespace {
// A histogram from (mean duration, calls) clusters, each in the bin of its mean.
model::DurationHistogram histogram(std::initializer_list<std::pair<double, std::uint64_t>> calls) {
  model::DurationHistogram h;
  for (const auto& [mean, n] : calls) model::add_durations(h, n, mean * static_cast<double>(n));
  return h;
}
}  // namespace

TEST_CASE("the robust baseline is the mean of the lowest cluster, not the fastest call",
          "[model]") {
  // Frequent small collectives: a few unusually fast calls, the calls that did not
  // wait at 1.1 µs, a tail of waits.
  CHECK(model::robust_baseline_s(histogram({{0.6e-6, 8}, {1.1e-6, 39000}, {5e-6, 50}, {40e-6, 30}}),
                                 0.5e-6) == Approx(1.1e-6));
  // Large transfers after a varying late sender: 25% of the receives did not wait
  // (140 µs); the others waited 0.5, 2 or 4 ms more. The fuller bins above are waits.
  CHECK(model::robust_baseline_s(histogram({{140e-6, 16}, {650e-6, 16}, {3.1e-3, 32}}), 113e-6) ==
        Approx(140e-6));
  // A cluster across a bin edge (1024 ns): both halves count.
  const auto straddling = histogram({{0.95e-6, 400}, {1.1e-6, 600}, {30e-6, 100}});
  CHECK(model::robust_baseline_s(straddling, 0.9e-6) ==
        Approx((0.95e-6 * 400 + 1.1e-6 * 600) / 1000));
  // An adjacent bin with less than half the calls, away from the edge, is waiting.
  CHECK(model::robust_baseline_s(histogram({{0.55e-6, 500}, {1.9e-6, 200}}), 0.5e-6) ==
        Approx(0.55e-6));
  // A transfer over TCP that takes 90 or 157 µs as often: one cluster over both bins.
  CHECK(model::robust_baseline_s(histogram({{90e-6, 681}, {157e-6, 691}, {285e-6, 62}}), 55e-6) ==
        Approx((90e-6 * 681 + 157e-6 * 691) / (681 + 691)));
  // No histogram (untimed polls, older profiles): the minimum.
  CHECK(model::robust_baseline_s({}, 2e-6) == 2e-6);
  CHECK(model::robust_baseline_s(histogram({{1e-6, 10}}), 2e-6) == 2e-6);
}

TEST_CASE("a lowest cluster far above the fastest call is waiting, not cost", "[model]") {
  // 39 receives that all waited about 5 ms, and one that found its message there
  // (3 µs): a cost does not vary 16-fold within one key, the fast call is the cost.
  CHECK(model::robust_baseline_s(histogram({{3e-6, 1}, {5.1e-3, 39}}), 2.9e-6) == Approx(3e-6));
  // 8-fold is still a spread of costs (a transfer over TCP): the cluster stands.
  CHECK(model::robust_baseline_s(histogram({{20e-6, 1}, {160e-6, 39}}), 19e-6) == Approx(160e-6));
}

TEST_CASE("blocking sends and receives of one size bound each other's baseline", "[model]") {
  auto key = [](std::string fn, std::int32_t size_class, double min_s,
                std::initializer_list<std::pair<double, std::uint64_t>> calls) {
    model::GlobalMinimum m;
    m.function = std::move(fn);
    m.size_class = size_class;
    m.min_s = min_s;
    m.durations = histogram(calls);
    return m;
  };
  // Sorted by (function, size class, shape), as the reduction leaves them.
  const model::GlobalMinima global = {
      // A receive that waits 5 ms every step: its own cluster is the waiting.
      key("MPI_Allreduce", 14, 1e-6, {{1.5e-6, 100}}),
      key("MPI_Recv", 14, 5.0e-3, {{5.1e-3, 40}}),
      key("MPI_Recv", 21, 100e-6, {{110e-6, 40}}),
      key("MPI_Send", 14, 2e-6, {{2.5e-6, 40}}),
      // A rendezvous send whose receiver is late every time.
      key("MPI_Send", 21, 2e-3, {{2.2e-3, 40}}),
  };
  const auto b = model::robust_baselines(global);
  REQUIRE(b.size() == global.size());
  CHECK(b[0] == Approx(1.5e-6));  // not point-to-point: its own
  // Bounded by 4x the send's 2.5 µs, below its fastest call: every call waited.
  CHECK(b[1] == Approx(4 * 2.5e-6));
  CHECK(b[2] == Approx(110e-6));      // the send of 1 MiB is no bound: slower
  CHECK(b[3] == Approx(2.5e-6));      // an eager send, cheaper than its receive
  CHECK(b[4] == Approx(4 * 110e-6));  // the late receiver's waiting shows
  // One receive that found its message there: it is the cost.
  model::GlobalMinima faster = global;
  faster[1].min_s = 3e-6;
  faster[1].durations = histogram({{3e-6, 1}, {5.1e-3, 39}});
  CHECK(model::robust_baselines(faster)[1] == Approx(3e-6));  // the fast call (16-fold rule)
}

TEST_CASE("local calls' time above their baseline is variation, not wait", "[model]") {
  model::ProfileTables t;
  t.functions = {"MPI_Comm_rank", "MPI_Recv", "MPI_Isend"};
  t.callsites.resize(1);
  t.ranks.resize(1);
  auto entry = [](std::uint32_t fn, std::uint64_t n, double time, double min,
                  model::DurationHistogram h) {
    model::Entry e{0, fn, 4, fn == 1 ? 1 : -1, n, time, min, 0, 0};
    e.durations = std::move(h);
    return e;
  };
  t.ranks[0].entries.push_back(entry(0, 10, 30e-6, 0.6e-6, histogram({{1e-6, 9}, {21e-6, 1}})));
  t.ranks[0].entries.push_back(entry(1, 10, 100e-6, 1e-6, histogram({{2e-6, 8}, {42e-6, 2}})));
  t.ranks[0].entries.push_back(entry(2, 4, 20e-6, 1e-6, histogram({{2e-6, 3}, {14e-6, 1}})));
  const auto s = model::summarize_all(t);
  const auto& rank = s.ranks.at(0);
  // Comm_rank: 30 − 10 × 1 µs; Isend: 20 − 4 × 2 µs; Recv: 100 − 10 × 2 µs.
  CHECK(rank.variation_s == Approx(20e-6 + 12e-6));
  CHECK(rank.wait_s == Approx(80e-6));
  CHECK(rank.wait_s_minimum == Approx((30 - 6) * 1e-6 + (100 - 10) * 1e-6 + (20 - 4) * 1e-6));
  CHECK(s.function_totals[0].wait_s == 0);
  CHECK(s.function_totals[0].variation_s == Approx(20e-6));
  REQUIRE(s.callsite_durations.size() == 3);
  CHECK(model::count_of(s.callsite_durations[1].durations) == 10);
}
