// The preload shim (libmpidle-preload.so), what a centre puts in every job's
// LD_PRELOAD: a process that never calls MPI loads nothing of MPI's or mpidle's
// profiler, and an MPI program gets the same whole profile as with libmpidle.so.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>

#include "fault_checks.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

namespace fs = std::filesystem;

// The shared objects a process maps (cat of its own /proc/self/maps).
std::set<std::string> mapped_objects(const std::string& preload) {
  std::map<std::string, std::string> env;
  if (!preload.empty()) env["LD_PRELOAD"] = preload;
  const auto r = run({"/bin/cat", "/proc/self/maps"}, env);
  std::set<std::string> objects;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const auto slash = line.find('/');
    if (slash != std::string::npos && line.find(".so") != std::string::npos) {
      objects.insert(fs::path(line.substr(slash)).filename().string());
    }
  }
  return objects;
}

void require_shim() {
  if (std::string(MPIDLE_PRELOAD_LIB).empty())
    skip_test("the preload shim is built on x86-64 only");
}

// A run through the shim: bare first, then with the shim preloaded instead of libmpidle.
Pair through_shim(const std::vector<std::string>& args, std::map<std::string, std::string> env,
                  const std::string& shim = MPIDLE_PRELOAD_LIB) {
  Pair p;
  p.bare = run_mpi(2, program("fault_dies"), args, {}, false);
  env["LD_PRELOAD"] = shim;
  p.profiled = run_mpi(2, program("fault_dies"), args, env, false);
  return p;
}

}  // namespace

TEST_CASE("preload shim: a process that never calls MPI maps no MPI library and no profiler",
          "[mpi]") {
  require_shim();
  const auto bare = mapped_objects("");
  const auto shim = mapped_objects(MPIDLE_PRELOAD_LIB);
  const auto whole = mapped_objects(MPIDLE_LIB);
  std::set<std::string> added;
  for (const auto& o : shim) {
    if (!bare.count(o)) added.insert(o);
  }
  CHECK(added == std::set<std::string>{fs::path(MPIDLE_PRELOAD_LIB).filename().string()});
  // libmpidle.so itself brings the MPI library and more along: the check can fail.
  CHECK(whole.size() > bare.size() + 3);
}

TEST_CASE("preload shim: an MPI program gets its whole profile, exact counts, in both modes",
          "[mpi]") {
  require_shim();
  for (const bool trace : {false, true}) {
    INFO((trace ? "trace mode" : "profile mode"));
    const auto dir = scratch_dir(std::string("preload_shim") + (trace ? "_trace" : ""));
    std::map<std::string, std::string> env = {{"MPIDLE_OUTPUT", dir}};
    if (trace) env["MPIDLE_TRACE"] = "1";
    const auto p = through_shim({"exit7"}, env);
    check_same_for_the_application(p);
    check_only_mpidle_lines(p.bare.err, p.profiled.err);
    REQUIRE(fs::exists(dir + "/profile.json"));
    const auto profile = model::read_profile(dir);
    CHECK(profile.run.ended == "MPI_Finalize");
    CHECK(profile.ranks.size() == 2);
    CHECK(calls_of(profile, "MPI_Allreduce") == 20);
    CHECK(calls_of(profile, "MPI_Comm_rank") == 2);
    if (trace) CHECK(fs::exists(dir + "/analysis.json"));
  }
  // MPIDLE_ENABLE=0 through the shim: nothing loaded, nothing written.
  const auto off = scratch_dir("preload_shim_off");
  const auto p = through_shim({"exit7"}, {{"MPIDLE_OUTPUT", off}, {"MPIDLE_ENABLE", "0"}});
  check_same_for_the_application(p);
  check_only_mpidle_lines(p.bare.err, p.profiled.err);
  CHECK(count_lines_with(p.profiled.err, "mpidle") == 0);
  CHECK_FALSE(fs::exists(off + "/profile.json"));
}

TEST_CASE(
    "preload shim: MPIDLE_LIBRARY_<MPI> picks the build, and without one, one line and the "
    "program runs as bare",
    "[mpi]") {
  require_shim();
  // The shim alone in a directory: no libmpidle beside it.
  const fs::path alone = scratch_dir("preload_shim_alone");
  fs::create_directories(alone);
  const fs::path shim = alone / fs::path(MPIDLE_PRELOAD_LIB).filename();
  fs::copy_file(MPIDLE_PRELOAD_LIB, shim);
  const auto dir = scratch_dir("preload_shim_none");
  const auto none = through_shim({"exit7"}, {{"MPIDLE_OUTPUT", dir}}, shim.string());
  check_same_for_the_application(none);
  check_only_mpidle_lines(none.bare.err, none.profiled.err);
  CHECK(count_lines_with(none.profiled.err, "no libmpidle for this MPI") == 1);
  CHECK_FALSE(fs::exists(dir + "/profile.json"));

  const auto chosen = scratch_dir("preload_shim_chosen");
  const auto picked = through_shim({"exit7"},
                                   {{"MPIDLE_OUTPUT", chosen},
                                    {"MPIDLE_LIBRARY_MPICH", MPIDLE_LIB},
                                    {"MPIDLE_LIBRARY_OPENMPI", MPIDLE_LIB}},
                                   shim.string());
  check_same_for_the_application(picked);
  REQUIRE(fs::exists(chosen + "/profile.json"));
  CHECK(calls_of(model::read_profile(chosen), "MPI_Allreduce") == 20);
}
