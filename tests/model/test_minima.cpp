#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/minima.hpp"
#include "model/table_merge.hpp"

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
