// Calls reach mpidle exactly once through every binding: threads, Fortran's three
// interfaces, and a program built by others (Debian's NetPIPE).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

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
  if (!build_tree::have_fortran) {
    skip_test("no Fortran MPI compiler was found at configure time");
  }
  // libmpidle preloaded itself, and loaded by the preload shim at the first call.
  std::vector<std::string> loaders = {""};
  if (!std::string(build_tree::mpidle_preload_lib).empty())
    loaders.push_back(build_tree::mpidle_preload_lib);
  for (const auto& loader : loaders)
    for (const char* name : {"fortran_mpif", "fortran_use_mpi", "fortran_mpi_f08"}) {
      INFO(name << (loader.empty() ? "" : " through the preload shim"));
      const auto dir = scratch_dir(name);
      std::map<std::string, std::string> env = {{"MPIDLE_OUTPUT", dir}};
      if (!loader.empty()) env["LD_PRELOAD"] = loader;
      const auto r = run_mpi(2, program(name), {}, env, loader.empty());
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
      // Callsites are the Fortran source lines, not frames of the MPI library's
      // Fortran bindings: each names the .f90 file and the line of its `call`.
      const std::string source = std::string(name) + ".f90";
      const std::string text =
          read_text(std::string(MPIDLE_SOURCE_DIR) + "/tests/programs/" + source);
      auto line_of = [&](const std::string& call) {
        std::size_t at = text.find("call " + call + "(");
        return at == std::string::npos
                   ? -1
                   : static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
      };
      REQUIRE_FALSE(p.callsites.empty());
      for (const auto& c : p.callsites) {
        INFO(c.function);
        REQUIRE_FALSE(c.frames.empty());
        CHECK_THAT(c.frames[0].file, Catch::EndsWith(source));
        CHECK(c.frames[0].line == line_of(c.function));
      }
    }
}

// NetPIPE 3.7.2 (Debian's netpipe-mpich2 or netpipe-openmpi, never rebuilt). With -l 1 -u 1 -p 0 -n
// R it measures a single 1-byte data point. From its source (netpipe.c, mpi.c), per rank: MPI_Init,
// MPI_Comm_rank, MPI_Comm_size; a Barrier, 100 latency ping-pongs, a Barrier; then for the data
// point a Barrier, the transmitter sends the repeat count (one MPI_Send / MPI_Recv), and TRIALS (3)
// times a Barrier and R ping-pongs.
TEST_CASE("NetPIPE from Debian runs unmodified with exact call counts", "[mpi]") {
  const int repeats = 40;
  const auto dir = scratch_dir("netpipe");
  // mpidle's -o names the run directory; NetPIPE's own -o, after --, its output file.
  const auto r = run({build_tree::mpidle_bin, "run", "-o", dir, "--", build_tree::mpiexec, "-n",
                      "2", build_tree::netpipe, "-l", "1", "-u", "1", "-p", "0", "-n",
                      std::to_string(repeats), "-o", dir + ".np.out"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // NetPIPE itself reports the repeat count it used.
  CHECK_THAT(r.err, Catch::Contains("1 bytes     " + std::to_string(repeats) + " times"));
  const int trials = 3;
  const auto p = model::read_profile(dir);
  const std::uint64_t ping_pongs = 100 + trials * repeats;
  CHECK(calls_of(p, "MPI_Send") == 2 * ping_pongs + 1);
  CHECK(calls_of(p, "MPI_Recv") == 2 * ping_pongs + 1);
  CHECK(calls_of(p, "MPI_Barrier") == 2 * (3 + trials));
  CHECK(calls_of(p, "MPI_Comm_rank") == 2);
  CHECK(calls_of(p, "MPI_Comm_size") == 2);
  CHECK(p.functions.size() == 5);
  // Callsites are in the NetPIPE binary, found by module and offset.
  for (const auto& c : p.callsites)
    CHECK_THAT(c.frames.at(0).module, Catch::EndsWith(std::string("/") + build_tree::netpipe));
  std::filesystem::remove(dir + ".np.out");
}
