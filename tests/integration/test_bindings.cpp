// Calls reach mpidle exactly once through every binding: threads, Fortran's three
// interfaces, and a program built by others (Debian's NetPIPE).
#include <catch2/catch.hpp>

#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

TEST_CASE("MPI_THREAD_MULTIPLE: every thread's calls are merged into its process", "[mpi]") {
  const auto dir = scratch_dir("threads");
  const auto r = run_mpi(2, program("thread_multiple"), {}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  REQUIRE(truth.contains("sendrecv_per_rank"));
  const auto p = model::read_profile(dir);
  const auto per_rank = truth["sendrecv_per_rank"].get<std::uint64_t>();
  CHECK(calls_of(p, "MPI_Sendrecv") == 2 * per_rank);
  REQUIRE(p.ranks.size() == 2);
  for (const auto& rank : p.ranks) CHECK(rank.calls == per_rank + 3);  // + rank, size, Barrier
}

TEST_CASE("Fortran programs are counted exactly once per call", "[mpi]") {
  if (!HAVE_FORTRAN) {
    WARN("skipped: no Fortran MPI compiler was found at configure time");
    return;
  }
  for (const char* name : {"fortran_mpif", "fortran_use_mpi", "fortran_mpi_f08"}) {
    INFO(name);
    const auto dir = scratch_dir(name);
    const auto r = run_mpi(2, program(name), {}, {{"MPIDLE_OUTPUT", dir}});
    REQUIRE(r.status == 0);
    const auto truth = truth_of(r.out);
    REQUIRE(truth.contains("barriers"));
    // A profile at all means MPI_Init and MPI_Finalize were seen.
    const auto p = model::read_profile(dir);
    CHECK(calls_of(p, "MPI_Barrier") == 2 * truth["barriers"].get<std::uint64_t>());
    CHECK(calls_of(p, "MPI_Allreduce") == 2 * truth["allreduces"].get<std::uint64_t>());
    CHECK(calls_of(p, "MPI_Comm_rank") == 2);
    CHECK(calls_of(p, "MPI_Comm_size") == 2);
    CHECK(p.functions.size() == 4);
  }
}
