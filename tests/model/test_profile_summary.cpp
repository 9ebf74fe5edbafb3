// The finalize tree's two passes (global minima, then summaries merged where
// subtrees meet) give the same numbers as the minimum method over all ranks at once.
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/minima.hpp"
#include "model/summary_codec.hpp"
#include "model/table_merge.hpp"

using namespace mpidle;

namespace {

// Eight ranks with different times and minima, one of them in another module.
model::ProfileTables eight_ranks() {
  model::ProfileTables all = test::tables_for_rank(0, 6e-6, 1e-6);
  for (int r = 1; r < 8; ++r) {
    model::merge_tables(all, test::tables_for_rank(r, 6e-6 * (r + 1), 1e-6 * (1 + r % 3),
                                                   r == 5 ? "/lib/other.so" : "/bin/app"));
  }
  return all;
}

}  // namespace

TEST_CASE("a binomial tree of encoded summaries equals the flat minimum method", "[model]") {
  const auto all = eight_ranks();
  const model::Minima flat(all);

  // Pass 1: the global minima, merged pairwise as the tree does.
  std::vector<model::GlobalMinima> minima;
  for (const auto& rank : all.ranks) {
    minima.push_back(model::minima_of({all.functions, all.callsites, {rank}}));
  }
  for (std::size_t step = 1; step < 8; step <<= 1) {
    for (std::size_t r = 0; r + step < 8; r += 2 * step) {
      const auto child = model::decode_minima(model::encode_minima(minima[r + step]));
      REQUIRE(child);
      model::merge_minima(minima[r], *child);
    }
  }
  const auto& global = minima[0];
  REQUIRE(global.size() == 2);
  CHECK(global[0].function == "MPI_Barrier");
  CHECK(global[1].function == "MPI_Recv");
  CHECK(global[1].min_s == 1e-6);
  CHECK(global[1].rank == 0);  // the lowest rank among equal minima (0, 3, 6)
  CHECK(global[1].count == 8 * 3);
  CHECK(global[1].ranks == 8);

  // Pass 2: every rank's summary against them, merged up the same tree.
  std::vector<model::ProfileSummary> node;
  for (const auto& rank : all.ranks) {
    node.push_back(model::summarize_rank({all.functions, all.callsites, {rank}}, global));
  }
  for (std::size_t step = 1; step < 8; step <<= 1) {
    for (std::size_t r = 0; r + step < 8; r += 2 * step) {
      const auto child = model::decode_summary(model::encode_summary(node[r + step]));
      REQUIRE(child);
      model::merge_summaries(node[r], *child);
    }
  }
  const auto& root = node[0];
  REQUIRE(root.ranks.size() == 8);
  CHECK(root.callsites.size() == 4);  // rank 5's module makes its own two
  for (std::size_t r = 0; r < 8; ++r) {
    CHECK(root.ranks[r].rank == static_cast<std::int32_t>(r));
    double local = 0, global_wait = 0;
    for (const auto& e : all.ranks[r].entries) {
      local += flat.wait_local(r, e);
      global_wait += flat.wait_global(e);
    }
    CHECK(root.ranks[r].wait_s_minimum == Approx(local));
    CHECK(root.ranks[r].wait_s_global_min == Approx(global_wait));
    // Without duration histograms the robust baseline is the global minimum.
    CHECK(root.ranks[r].wait_s + root.ranks[r].variation_s == Approx(global_wait));
  }
  const auto flat_summary = model::summarize_all(all);
  for (std::size_t f = 0; f < root.functions.size(); ++f) {
    CHECK(root.function_totals[f].wait_s == Approx(flat_summary.function_totals[f].wait_s));
    CHECK(root.function_totals[f].calls == flat_summary.function_totals[f].calls);
  }
}

TEST_CASE("what travels up the tree does not grow with the ranks beyond their rows", "[model]") {
  // The aggregates (functions, callsites, minima) of a 64-rank subtree are the size
  // of one rank's; only the rank rows add up.
  auto one = model::summarize_all(test::tables_for_rank(0, 6e-6, 1e-6));
  model::ProfileTables many = test::tables_for_rank(0, 6e-6, 1e-6);
  for (int r = 1; r < 64; ++r) model::merge_tables(many, test::tables_for_rank(r, 6e-6, 1e-6));
  auto sixty_four = model::summarize_all(many);
  CHECK(sixty_four.callsites.size() == one.callsites.size());
  CHECK(sixty_four.functions.size() == one.functions.size());
  CHECK(sixty_four.minima.size() == one.minima.size());
  auto rows_only = [](model::ProfileSummary s) {
    s.ranks.clear();
    return model::encode_summary(s).size();
  };
  CHECK(rows_only(sixty_four) == rows_only(one));
}
