// Wait states from the parallel replay (each rank's own records and what the replay
// brought of its partners, merged) against analyze_wait_states on the whole
// sequentially synchronized trace: the same waits, site by site and rank by rank.
#include <catch2/catch.hpp>

#include "../sync/generated_traces.hpp"
#include "analysis/rank_waits.hpp"
#include "sync/parallel_sync.hpp"
#include "sync/trace_sync.hpp"

using namespace mpidle;

namespace {

analysis::WaitStates replayed_waits(model::Trace trace, int processes) {
  std::vector<sync::RankPartners> partners;
  std::uint64_t complete = 0;
  sync::synchronize_trace_by_replay(trace, sync::ClcParams{.min_latency_ns = -1}, processes,
                                    &partners, &complete);
  REQUIRE(partners.size() == trace.ranks.size());
  analysis::SendClasses classes;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    analysis::merge_send_classes(classes, analysis::send_classes(trace.ranks[r], partners[r]));
  }
  analysis::WaitStates all;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    analysis::merge_wait_states(
        all, analysis::rank_wait_states(trace, trace.ranks[r], static_cast<std::uint32_t>(r),
                                        partners[r], classes));
  }
  all.collectives = complete;
  return all;
}

const analysis::SiteWaits* site(const analysis::WaitStates& w, std::uint32_t callsite,
                                std::uint32_t function) {
  for (const auto& s : w.sites) {
    if (s.callsite == callsite && s.function == function) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("replayed wait states equal the sequential analysis, every pattern, any process count",
          "[analysis]") {
  for (const std::uint32_t ranks : {2u, 3u, 4u, 5u}) {
    const auto trace = test::generated(ranks, 31 + ranks, 60);
    model::Trace synced = trace;
    sync::synchronize_trace(synced, sync::ClcParams{.min_latency_ns = -1});
    const auto expected = analysis::analyze_wait_states(synced);
    INFO(ranks << " ranks");
    // Every pattern the generated runs hold has waits to compare.
    for (const auto p : {analysis::Pattern::late_sender, analysis::Pattern::late_receiver,
                         analysis::Pattern::wait_nxn, analysis::Pattern::wait_barrier,
                         analysis::Pattern::late_broadcast, analysis::Pattern::early_reduce,
                         analysis::Pattern::early_scan}) {
      INFO(analysis::pattern_key(p));
      CHECK(expected.totals[static_cast<std::size_t>(p)] > 0);
    }
    for (int processes = 1; processes <= static_cast<int>(ranks); ++processes) {
      INFO(processes << " replay processes");
      const auto got = replayed_waits(trace, processes);
      CHECK(got.events == expected.events);
      CHECK(got.messages == expected.messages);
      CHECK(got.collectives == expected.collectives);
      for (std::size_t k = 0; k < analysis::kPatterns; ++k) {
        CHECK(got.totals[k] == Approx(expected.totals[k]).epsilon(1e-12));
      }
      REQUIRE(got.sites.size() == expected.sites.size());
      for (const auto& want : expected.sites) {
        const auto* have = site(got, want.callsite, want.function);
        REQUIRE(have != nullptr);
        CHECK(have->instances == want.instances);
        REQUIRE(have->by_rank.size() == want.by_rank.size());
        for (const auto& [position, seconds] : want.by_rank) {
          REQUIRE(have->by_rank.count(position) == 1);
          for (std::size_t k = 0; k < analysis::kPatterns; ++k) {
            CHECK(have->by_rank.at(position)[k] == Approx(seconds[k]).epsilon(1e-12));
          }
        }
      }
    }
  }
}
