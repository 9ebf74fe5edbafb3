#include <catch2/catch.hpp>

#include "model/function_catalog.hpp"
#include "mpi_fn.hpp"

// The wrappers (generated with mpi.h) and the MPI-free catalog (generated without it)
// come from the same table: every wrapped function must be in the catalog.
TEST_CASE("catalog: every wrapped function is in the MPI-free catalog", "[catalog]") {
  for (const char* name : mpidle::profiler::kMpiFnNames) {
    INFO(name);
    CHECK(mpidle::model::find_function(name) != nullptr);
  }
}
