// Every way a program starts and ends MPI gets its whole profile: MPI_Finalize
// after main has returned (static and library destructors, atexit handlers on
// either side of MPI_Init, another thread), a packaged C++ program that does so,
// and MPI-4 sessions. Each case runs bare and under mpidle: the application cannot
// tell, and the profile holds exactly the calls the program made.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fault_checks.hpp"
#include "model/trace_file.hpp"
#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

namespace fs = std::filesystem;

// Allreduce per rank: ten in main, one in the exit step (programs/exit_step.h).
constexpr std::uint64_t kExitOrderAllreduces = 11;

struct ExitOrder {
  const char* order;  // argv[1]
  const char* where;  // what the exit step prints
};

// The records of `function` in one rank's trace (calls, not completions).
std::uint64_t records_of(const model::Trace& t, const model::RankTrace& rank,
                         const std::string& function) {
  std::uint64_t n = 0;
  for (const auto& r : rank.records) {
    n += r.extra == 0 && r.function < t.functions.size() && t.functions[r.function] == function;
  }
  return n;
}

// A run that called MPI_Finalize: one whole profile of every rank, no partial one,
// `allreduces` per rank; in trace mode a trace with each of them, and its analysis.
void check_whole_run(const std::string& dir, int ranks, std::uint64_t allreduces, bool trace) {
  INFO("run directory " << dir);
  CHECK_FALSE(fs::exists(dir + "/partial"));
  REQUIRE(fs::exists(dir + "/profile.json"));
  const auto profile = model::read_profile(dir);
  CHECK(profile.run.ended == "MPI_Finalize");
  REQUIRE(profile.ranks.size() == static_cast<std::size_t>(ranks));
  CHECK(calls_of(profile, "MPI_Allreduce") == static_cast<std::uint64_t>(ranks) * allreduces);
  if (!trace) return;
  CHECK(profile.run.mode == "trace");
  REQUIRE(profile.trace);
  CHECK(fs::exists(dir + "/analysis.json"));
  const auto t = model::read_trace(fs::path(dir) / profile.trace->file);
  REQUIRE(t.ranks.size() == static_cast<std::size_t>(ranks));
  for (std::size_t i = 0; i < t.ranks.size(); ++i) {
    INFO("rank " << i);
    CHECK(records_of(t, t.ranks[i], "MPI_Allreduce") == allreduces);
    CHECK(t.ranks[i].synced.size() == 2 * t.ranks[i].records.size());
    CHECK(profile.trace->events_by_rank[i] == profile.ranks[i].calls);
  }
}

// Each order, bare and under mpidle in profile and trace mode.
void check_exit_orders(const std::string& program_name, const std::vector<ExitOrder>& orders) {
  for (const auto& [order, where] : orders) {
    for (const bool trace : {false, true}) {
      INFO(program_name << " " << order << (trace ? ", trace mode" : ", profile mode"));
      const auto dir = scratch_dir(program_name + "_" + order + (trace ? "_trace" : ""));
      std::map<std::string, std::string> env = {{"MPIDLE_OUTPUT", dir}};
      if (trace) env["MPIDLE_TRACE"] = "1";
      const auto p = both(2, program(program_name), {order}, env);
      if (p.bare.out.find("thread level lower") != std::string::npos &&
          std::string(order) == "thread") {
        // One order of several: the others still run and are checked.
        WARN("not checked: this MPI does not provide MPI_THREAD_MULTIPLE");
        continue;
      }
      // What the program does bare is the reference: it must finalize at exit.
      REQUIRE(p.bare.status == 0);
      CHECK(p.bare.out == "main returns (" + std::string(order) +
                              "), sum 3.0, thread level multiple\nfinalizing from " + where +
                              ", sum 2.0\n");
      check_same_for_the_application(p);
      check_only_mpidle_lines(p.bare.err, p.profiled.err);
      CHECK(count_lines_with(p.profiled.err, "without MPI_Finalize") == 0);
      check_whole_run(dir, 2, kExitOrderAllreduces, trace);
    }
  }
}

// The errors memcheck reports in mpidle's own code (a stack through libmpidle): each
// error in its log starts with its kind and ends at a line with nothing after the pid.
std::size_t memcheck_errors_in_mpidle(const std::string& log, std::string* first) {
  static const std::regex kind(R"(^==\d+== (Invalid (read|write|free)|Mismatched free))");
  static const std::regex blank(R"(==\d+==\s*)");
  std::size_t errors = 0;
  std::string block;
  bool in_error = false;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, kind)) {
      in_error = true;
      block.clear();
    }
    if (!in_error) continue;
    block += line + "\n";
    if (std::regex_match(line, blank)) {
      in_error = false;
      // libunwind's setcontext, resuming an exception mpidle caught, reads the
      // context it saved below the stack pointer: on the stack, not freed memory.
      if (block.find("libmpidle") != std::string::npos &&
          block.find("below stack pointer") == std::string::npos) {
        if (errors++ == 0 && first) *first = block;
      }
    }
  }
  return errors;
}

}  // namespace

TEST_CASE("C: MPI_Finalize after main returns, in every order, gives the whole profile", "[mpi]") {
  check_exit_orders("fault_exit_orders_c", {{"destructor", "executable destructor"},
                                            {"library", "library destructor"},
                                            {"atexit-before", "atexit-before"},
                                            {"atexit-after", "atexit-after"},
                                            {"thread", "another thread"}});
}

TEST_CASE("C++: MPI_Finalize after main returns, in every order, gives the whole profile",
          "[mpi]") {
  check_exit_orders("fault_exit_orders_cxx", {{"static", "executable static destructor"},
                                              {"library", "library static destructor"},
                                              {"atexit-before", "atexit-before"},
                                              {"atexit-after", "atexit-after"},
                                              {"thread", "another thread"}});
}

// What mpidle frees at exit, a program that calls MPI after main returns must not
// reach: its exit handlers run before the executable's destructors and before
// atexit handlers registered ahead of MPI_Init. Freed memory is read without
// failing most of the time, so memcheck watches: with 1 ms windows the exit step
// crosses window edges, and the finalize reads the windows' schedule.
TEST_CASE("MPI after main returns touches no memory mpidle has freed (memcheck)", "[mpi]") {
  if (std::system("valgrind --version > /dev/null 2>&1") != 0) {
    skip_test("valgrind is not installed (Debian package valgrind)");
  }
  const std::pair<const char*, bool> runs[] = {
      {"destructor", false}, {"atexit-before", false}, {"destructor", true}};
  for (const auto& [order, trace] : runs) {
    INFO(order << (trace ? ", trace mode" : ", profile mode"));
    const auto dir = scratch_dir(std::string("memcheck_") + order + (trace ? "_trace" : ""));
    const auto logs = dir + "-valgrind";
    fs::remove_all(logs);
    fs::create_directories(logs);
    std::map<std::string, std::string> env = {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_WINDOW_MS", "1"}};
    if (trace) env["MPIDLE_TRACE"] = "1";
    const auto r = run_mpi(2, "valgrind",
                           {"--error-limit=no", "--num-callers=40", "--log-file=" + logs + "/%p",
                            program("fault_exit_orders_c"), order},
                           env);
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("finalizing from"));
    std::size_t logs_read = 0;
    for (const auto& entry : fs::directory_iterator(logs)) {
      const auto log = read_text(entry.path().string());
      if (log.find("fault_exit_orders_c") == std::string::npos) continue;  // the launcher's
      ++logs_read;
      CHECK_THAT(log, Catch::Contains("ERROR SUMMARY"));
      std::string first;
      const auto errors = memcheck_errors_in_mpidle(log, &first);
      INFO(entry.path().string() << ", first error:\n" << first);
      CHECK(errors == 0);
    }
    CHECK(logs_read == 2);
    check_whole_run(dir, 2, kExitOrderAllreduces, trace);
  }
}

TEST_CASE("MPI-4 sessions: whole profiles with exact counts, alone, several, mixed with MPI_Init",
          "[mpi]") {
  struct Way {
    const char* how;
    const char* line;            // rank 0's stdout
    std::uint64_t allreduces;    // per rank
    std::uint64_t comm_creates;  // the application's MPI_Comm_create_from_group per rank
  };
  const Way ways[] = {{"one", "one session, sum 3.0\n", 100, 1},
                      {"two", "two sessions, sums 3.0 3.0\n", 200, 2},
                      {"init-first", "MPI_Init first, sums 3.0 3.0\n", 200, 1},
                      {"session-first", "session first, sums 3.0 3.0\n", 200, 1}};
  for (const auto& way : ways) {
    for (const bool trace : {false, true}) {
      INFO(way.how << (trace ? ", trace mode" : ", profile mode"));
      const auto dir = scratch_dir(std::string("sessions_") + way.how + (trace ? "_trace" : ""));
      std::map<std::string, std::string> env = {{"MPIDLE_OUTPUT", dir}};
      if (trace) env["MPIDLE_TRACE"] = "1";
      const auto p = both(2, program("fault_sessions"), {way.how}, env);
      REQUIRE(p.bare.status == 0);
      if (p.bare.out.find("skipped") != std::string::npos) {
        const auto said = truth_of(p.bare.out);  // each rank said it: the first line
        skip_test(said.is_object() ? said.value("skipped", p.bare.out) : p.bare.out);
      }
      CHECK(p.bare.out == way.line);
      check_same_for_the_application(p);
      check_only_mpidle_lines(p.bare.err, p.profiled.err);
      check_whole_run(dir, 2, way.allreduces, trace);
      // mpidle's own session and communicator are not the application's calls.
      CHECK(calls_of(model::read_profile(dir), "MPI_Comm_create_from_group") ==
            2 * way.comm_creates);
    }
  }
  // mpidle run finds the profile, instead of taking the program for one that never
  // called MPI.
  const auto dir = scratch_dir("sessions_run");
  std::map<std::string, std::string> none;
  std::vector<std::string> argv = {MPIDLE_BIN, "run", "--output", dir, "--"};
  const auto launch = mpi_command(2, program("fault_sessions"), {"one"}, none, false);
  argv.insert(argv.end(), launch.begin(), launch.end());
  const auto r = run(argv, none);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.err, Catch::Contains("mpidle: profile in " + dir));
  CHECK(count_lines_with(r.err, "nothing was intercepted") == 0);
}

TEST_CASE("a packaged C++ program that finalizes MPI at exit (BAGEL) gets its whole profile",
          "[mpi]") {
  const std::string bagel = "/usr/bin/BAGEL";
  if (testing_open_mpi()) {
    skip_test("Debian's BAGEL is built for MPICH");
  }
  if (!fs::exists(bagel)) {
    skip_test("BAGEL is not installed (Debian package bagel)");
  }
  const std::string input = std::string(FAULT_DATA_DIR) + "/bagel_water.json";
  for (const bool trace : {false, true}) {
    INFO((trace ? "trace mode" : "profile mode"));
    const auto dir = scratch_dir(std::string("bagel") + (trace ? "_trace" : ""));
    std::map<std::string, std::string> env = {{"MPIDLE_OUTPUT", dir}};
    if (trace) env["MPIDLE_TRACE"] = "1";
    const auto p = both(2, bagel, {input}, env);
    INFO("bare stdout: " << p.bare.out);
    REQUIRE(p.bare.status == 0);
    CHECK(p.profiled.status == 0);
    // Its stdout times each step; the energies of every SCF iteration must agree.
    const auto energies = [](const std::string& text) {
      static const std::regex energy(R"(-\d+\.\d{8})");
      std::vector<std::string> found;
      for (auto it = std::sregex_iterator(text.begin(), text.end(), energy);
           it != std::sregex_iterator(); ++it) {
        found.push_back(it->str());
      }
      return found;
    };
    CHECK_FALSE(energies(p.bare.out).empty());
    CHECK(energies(p.profiled.out) == energies(p.bare.out));
    check_only_mpidle_lines(p.bare.err, p.profiled.err);
    CHECK(count_lines_with(p.profiled.err, "without MPI_Finalize") == 0);
    CHECK_FALSE(fs::exists(dir + "/partial"));
    REQUIRE(fs::exists(dir + "/profile.json"));
    const auto profile = model::read_profile(dir);
    CHECK(profile.run.ended == "MPI_Finalize");
    REQUIRE(profile.ranks.size() == 2);
    for (const auto& rank : profile.ranks) CHECK(rank.calls > 0);
    if (trace) {
      REQUIRE(profile.trace);
      const auto t = model::read_trace(fs::path(dir) / profile.trace->file);
      REQUIRE(t.ranks.size() == 2);
      for (std::size_t i = 0; i < 2; ++i) {
        std::uint64_t calls = 0;
        for (const auto& r : t.ranks[i].records) calls += r.extra == 0;
        CHECK(calls == profile.ranks[i].calls);
      }
    }
  }
}
