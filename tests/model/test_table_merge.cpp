#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/table_merge.hpp"

using namespace mpidle;

TEST_CASE("merge unifies callsites by module and offset, and sorts ranks", "[model]") {
  auto into = test::tables_for_rank(2, 6e-6, 1e-6);
  auto from = test::tables_for_rank(1, 8e-6, 2e-6);
  // The other rank lists its callsites and functions in another order.
  std::swap(from.callsites[0], from.callsites[1]);
  std::swap(from.functions[0], from.functions[1]);
  for (auto& e : from.ranks[0].entries) {
    e.callsite = 1 - e.callsite;
    e.function = 1 - e.function;
  }
  from.ranks[0].first_calls[0].function = 0;

  model::merge_tables(into, from);
  REQUIRE(into.callsites.size() == 2);
  REQUIRE(into.functions.size() == 2);
  REQUIRE(into.ranks.size() == 2);
  CHECK(into.ranks[0].rank == 1);
  CHECK(into.ranks[1].rank == 2);
  // Rank 1's receive entry now points at the same callsite and function as rank 2's.
  const auto& moved = into.ranks[0].entries;
  const auto recv =
      std::find_if(moved.begin(), moved.end(), [](const auto& e) { return e.peer == 1; });
  REQUIRE(recv != moved.end());
  CHECK(into.functions[recv->function] == "MPI_Recv");
  CHECK(into.callsites[recv->callsite].frames[0].offset == 0x1000);
  CHECK(into.functions[into.ranks[0].first_calls[0].function] == "MPI_Barrier");
}

TEST_CASE("different modules at the same offset stay different callsites", "[model]") {
  auto into = test::tables_for_rank(0, 6e-6, 1e-6, "/bin/app");
  model::merge_tables(into, test::tables_for_rank(1, 6e-6, 1e-6, "/lib/libother.so"));
  CHECK(into.callsites.size() == 4);
}
