#include <catch2/catch.hpp>

#include "model/function_catalog.hpp"

using namespace mpidle::model;

TEST_CASE("catalog: what each function is, in every form", "[catalog]") {
  const FunctionInfo* send = find_function("MPI_Send");
  REQUIRE(send != nullptr);
  CHECK(send->group == FunctionGroup::point_to_point);
  CHECK(send->kind == "send");

  for (const char* name : {"MPI_Allreduce", "MPI_Iallreduce", "MPI_Allreduce_init",
                           "MPI_Allreduce_c", "MPI_Iallreduce_c"}) {
    INFO(name);
    const FunctionInfo* f = find_function(name);
    REQUIRE(f != nullptr);
    CHECK(f->group == FunctionGroup::collective);
    CHECK(f->operation == CollectiveOperation::allreduce);
    CHECK(f->dependency == CollectiveKind::n_to_n);
    CHECK(operation_name(f->operation) == "allreduce");
  }
  CHECK(find_function("MPI_Bcast")->dependency == CollectiveKind::one_to_n);
  CHECK(find_function("MPI_Gatherv")->dependency == CollectiveKind::n_to_one);
  CHECK(find_function("MPI_Exscan")->dependency == CollectiveKind::exscan);
  CHECK(find_function("MPI_Ineighbor_alltoallw")->operation ==
        CollectiveOperation::neighbor_alltoallw);
}

TEST_CASE("catalog: completions and barriers are known by kind, not by name", "[catalog]") {
  for (const char* name : {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test",
                           "MPI_Testall", "MPI_Testany", "MPI_Testsome"}) {
    INFO(name);
    CHECK(is_completion(name));
  }
  // Names that merely look alike are not completions or barriers.
  CHECK_FALSE(is_completion("MPI_Win_wait"));
  CHECK_FALSE(is_completion("MPI_Win_test"));
  CHECK_FALSE(is_completion("MPI_Send"));
  CHECK(is_barrier("MPI_Barrier"));
  CHECK(is_barrier("MPI_Ibarrier"));
  CHECK(is_barrier("MPI_Barrier_init"));
  CHECK_FALSE(is_barrier("MPI_Win_fence"));
  CHECK_FALSE(is_barrier("MPI_Allreduce"));
}

TEST_CASE("catalog: unknown names and the environment", "[catalog]") {
  CHECK(find_function("MPI_Frobnicate") == nullptr);
  CHECK(find_function("") == nullptr);
  REQUIRE(find_function("MPI_Init") != nullptr);
  CHECK(find_function("MPI_Init")->group == FunctionGroup::environment);
  CHECK(find_function("MPI_Init")->operation == CollectiveOperation::none);
}
