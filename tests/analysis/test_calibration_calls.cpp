// Calibration from a whole trace: every call the analysis judges, its exact wait and
// its cost. On a complete trace the judged calls hold every wait the analysis found,
// so each key's calibrated baseline gives back its exact wait (docs/calibration.md).
#include <catch2/catch.hpp>

#include <map>

#include "../sync/generated_traces.hpp"
#include "analysis/calibration_calls.hpp"
#include "analysis/rank_waits.hpp"
#include "model/function_catalog.hpp"
#include "sync/parallel_sync.hpp"
#include "sync/trace_sync.hpp"

using namespace mpidle;

TEST_CASE("calibration from every call of a trace holds every exact wait", "[analysis]") {
  for (const std::uint32_t ranks : {2u, 3u, 5u}) {
    INFO(ranks << " ranks");
    auto trace = test::generated(ranks, 7 + ranks, 60);
    std::vector<sync::RankPartners> partners;
    sync::synchronize_trace_by_replay(trace, sync::ClcParams{.min_latency_ns = -1}, 2, &partners);
    analysis::SendClasses classes;
    for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
      analysis::merge_send_classes(classes, analysis::send_classes(trace.ranks[r], partners[r]));
    }
    analysis::WaitStates all;
    model::Calibration calibration;
    for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
      analysis::CallWaits waits;
      analysis::merge_wait_states(
          all, analysis::rank_wait_states(trace, trace.ranks[r], static_cast<std::uint32_t>(r),
                                          partners[r], classes, &waits));
      REQUIRE(waits.size() == trace.ranks[r].records.size());
      model::merge_calibration(calibration,
                               analysis::calibrate_rank(trace, trace.ranks[r], partners[r], waits));
    }
    double exact = 0;
    for (double t : all.totals) exact += t;
    REQUIRE(exact > 0);
    double judged = 0;
    std::uint64_t calls = 0;
    for (const auto& [key, c] : calibration.keys) {
      judged += c.wait_s;
      calls += c.calls;
      CHECK(model::can_wait(std::get<0>(key)));
      CHECK(c.cost_s >= 0);
    }
    // Per function. A call's wait is bounded by its measured duration: where the
    // controlled logical clock stretched a call (the generated ranks' clocks drift),
    // its synchronized wait can exceed it by the stretch.
    std::map<std::string, double> by_function, judged_by_function;
    for (const auto& site : all.sites) {
      for (double t : site.total) by_function[trace.functions[site.function]] += t;
    }
    for (const auto& [key, c] : calibration.keys) judged_by_function[std::get<0>(key)] += c.wait_s;
    for (const auto& [f, w] : by_function) {
      INFO(f << ": exact " << w << " judged " << judged_by_function[f]);
      CHECK(judged_by_function[f] == Approx(w).epsilon(0.005));
      CHECK(judged_by_function[f] <= w * (1 + 1e-12));
    }
    CHECK(judged == Approx(exact).epsilon(0.005));
    // Every call that can wait was judged: the trace is complete.
    std::uint64_t can_wait = 0;
    for (const auto& r : trace.ranks) {
      for (const auto& rec : r.records) {
        if (rec.extra == 0 && model::can_wait(trace.functions.at(rec.function))) ++can_wait;
      }
    }
    CHECK(calls + calibration.calls_left_out == can_wait);
    // Each key's baseline gives its wait back: Σ duration − calls × baseline.
    for (const auto& [key, c] : calibration.keys) {
      if (c.calls < model::kMinCalibratedCalls) continue;
      const double baseline = model::calibrated_baseline(calibration, key)->cost_s;
      CHECK(c.cost_s + c.wait_s - static_cast<double>(c.calls) * baseline ==
            Approx(c.wait_s).margin(1e-12));
    }
  }
}

TEST_CASE("a window's calls whose partner was outside it are not judged", "[analysis]") {
  auto trace = test::generated(2, 11, 40);
  // Rank 1 lost its first half: rank 0's messages to it and the collectives then
  // have no partner there.
  auto& lost = trace.ranks[1].records;
  lost.erase(lost.begin(), lost.begin() + static_cast<std::ptrdiff_t>(lost.size() / 2));
  std::vector<sync::RankPartners> partners;
  sync::synchronize_trace_by_replay(trace, sync::ClcParams{.min_latency_ns = -1}, 1, &partners);
  model::Calibration calibration;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    analysis::CallWaits waits;
    analysis::rank_wait_states(trace, trace.ranks[r], static_cast<std::uint32_t>(r), partners[r],
                               {}, &waits);
    model::merge_calibration(calibration,
                             analysis::calibrate_rank(trace, trace.ranks[r], partners[r], waits));
  }
  CHECK(calibration.calls_left_out > 0);
}
