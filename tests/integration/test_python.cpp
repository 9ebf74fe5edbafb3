// mpi4py programs (Debian's python3-mpi4py, built for Open MPI): callsites at the
// Python line in profile and trace mode, sizes of pickled objects, a program that
// leaves MPI_Finalize to mpi4py, and a late sender's wait against the truth the
// program observes itself (the send's start inside each message), and that line in
// every report: text, HTML, OTF2, compare and the fleet.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "build_paths.hpp"
#include "process.hpp"

using namespace mpidle::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kPython = "/usr/bin/python3";  // Debian's, which mpi4py is built for

std::string script(const std::string& name) {
  return std::string(MPIDLE_SOURCE_DIR) + "/tests/programs/" + name;
}

// Why mpi4py programs cannot run here, or "".
std::string why_no_mpi4py() {
  if (!testing_open_mpi()) return "Debian's mpi4py is built for Open MPI";
  if (run({kPython, "-c", "import mpi4py"}).status != 0) {
    return "mpi4py is not installed (Debian package python3-mpi4py)";
  }
  return {};
}

// The 1-based line of `script_path` that contains `marker`.
int line_of(const std::string& script_path, const std::string& marker) {
  std::ifstream in(script_path);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.find(marker) != std::string::npos) return n;
  }
  return 0;
}

// Every callsite row of `function`, as (file:line (function), row).
std::vector<std::pair<std::string, json>> callsites_of(const json& profile,
                                                       const std::string& function) {
  std::vector<std::pair<std::string, json>> out;
  for (const auto& c : profile["callsites"]) {
    if (c["function"] != function || c["frames"].empty()) continue;
    const auto& f = c["frames"][0];
    out.emplace_back(f.value("file", "") + ":" + std::to_string(f.value("line", 0)) + " (" +
                         f.value("function", "") + ")",
                     c);
  }
  return out;
}

}  // namespace

TEST_CASE("mpi4py: callsites at the Python line, pickled sizes, MPI_Finalize left to mpi4py",
          "[mpi]") {
  if (const auto why = why_no_mpi4py(); !why.empty()) {
    skip_test(why);
  }
  const std::string program = script("python_callsites.py");
  const int left = line_of(program, "# the left receive");
  const int right = line_of(program, "# the right receive");
  const int broadcast = line_of(program, "# the broadcast");
  REQUIRE(left > 0);
  for (const bool trace : {false, true}) {
    const auto dir = scratch_dir(std::string("python_callsites_") + (trace ? "trace" : "profile"));
    const auto r = run_mpi(2, kPython, {program},
                           {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", trace ? "1" : "0"}});
    INFO((trace ? "trace" : "profile") << " mode\n" << r.err);
    REQUIRE(r.status == 0);
    const auto facts = json::parse(r.out);
    const auto profile = json::parse(read_text(dir + "/profile.json"));
    // mpi4py finalized MPI at the interpreter's exit: the profile is whole.
    CHECK(profile["run"]["ended"] == "MPI_Finalize");
    CHECK(profile["ranks"].size() == 2);
    // The two comm.Recv lines are two callsites, each named by its Python line.
    const auto receives = callsites_of(profile, "MPI_Recv");
    std::set<std::string> names;
    for (const auto& [name, row] : receives) {
      names.insert(name);
      CHECK(row["visits"] == facts["messages"]);
    }
    CHECK(names == std::set<std::string>{
                       "python_callsites.py:" + std::to_string(left) + " (receive_left)",
                       "python_callsites.py:" + std::to_string(right) + " (receive_right)"});
    // comm.bcast sends the pickle's length (one MPI_INT), then the pickle: every
    // MPI_Bcast is at the broadcast's line, with exactly those bytes on both ranks.
    double bcast_bytes = 0;
    for (const auto& [name, row] : callsites_of(profile, "MPI_Bcast")) {
      CHECK(name == "python_callsites.py:" + std::to_string(broadcast) + " (main)");
      bcast_bytes += row["bytes"].get<double>();
    }
    const double pickled = facts["pickled"].get<double>();
    CHECK(bcast_bytes == 2 * facts["broadcasts"].get<double>() * (pickled + 4));
    // No call the program made names mpi4py's extension module any more (mpi4py's
    // own calls at the interpreter's exit have no Python line, and keep theirs).
    for (const auto& c : profile["callsites"]) {
      if (c["function"] != "MPI_Send" && c["function"] != "MPI_Recv" &&
          c["function"] != "MPI_Bcast") {
        continue;
      }
      for (const auto& f : c["frames"]) {
        INFO(c["function"] << " at " << f.dump());
        CHECK(f.value("module", "").find("MPI.cpython") == std::string::npos);
      }
    }
    if (!trace) continue;
    // The loop summary's callsites and the trace's timeline name the same lines.
    const auto summary = run({build_tree::mpidle_bin, "summary", dir});
    CHECK_THAT(summary.out,
               Catch::Contains("python_callsites.py:" + std::to_string(left) + " (receive_left)"));
    const auto chrome = dir + "/timeline.json";
    const auto e = run({build_tree::mpidle_bin, "export", dir, "--chrome", chrome});
    INFO(e.err);
    REQUIRE(e.status == 0);
    CHECK_THAT(read_text(chrome), Catch::Contains("python_callsites.py:" + std::to_string(right) +
                                                  " (receive_right)"));
  }
}

TEST_CASE("mpi4py: --callsite-depth 2 gives the two innermost Python frames", "[mpi]") {
  if (const auto why = why_no_mpi4py(); !why.empty()) {
    skip_test(why);
  }
  const std::string program = script("python_callsites.py");
  const auto dir = scratch_dir("python_callsites_depth");
  const auto r =
      run_mpi(2, kPython, {program}, {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_CALLSITE_DEPTH", "2"}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto profile = json::parse(read_text(dir + "/profile.json"));
  std::set<std::string> callers;
  for (const auto& c : profile["callsites"]) {
    if (c["function"] != "MPI_Recv") continue;
    REQUIRE(c["frames"].size() == 2);
    const auto& outer = c["frames"][1];
    callers.insert(c["frames"][0]["function"].get<std::string>() + " <- " +
                   outer["function"].get<std::string>() + ":" +
                   std::to_string(outer["line"].get<int>()));
  }
  CHECK(callers ==
        std::set<std::string>{
            "receive_left <- main:" + std::to_string(line_of(program, "# calls the left receive")),
            "receive_right <- main:" +
                std::to_string(line_of(program, "# calls the right receive"))});
}

TEST_CASE("mpi4py: a late sender's wait at its comm.Recv line against the observed truth",
          "[mpi]") {
  if (const auto why = why_no_mpi4py(); !why.empty()) {
    skip_test(why);
  }
  const std::string program = script("late_sender.py");
  const int recv_line = line_of(program, "comm.Recv(");
  const auto dir = scratch_dir("python_late_sender");
  const auto r =
      run_mpi(2, kPython, {program, "--json"}, {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const double truth = json::parse(r.out)["recv_wait_s"].get<double>();
  REQUIRE(truth > 0.1);  // 40 receives of about 5 ms each
  const auto profile = json::parse(read_text(dir + "/profile.json"));
  // comm.allreduce of a Python object is mpi4py's Sends, Recvs and Bcasts: its
  // MPI_Recv is a callsite of its own, at the allreduce's line.
  const std::string name = "late_sender.py:" + std::to_string(recv_line) + " (exchange)";
  json row;
  for (const auto& [where, r] : callsites_of(profile, "MPI_Recv")) {
    if (where == name) row = r;
  }
  INFO(profile["callsites"].dump());
  REQUIRE(row.is_object());
  CHECK(row["visits"] == 40);
  // The trace's wait at that line (the default for a traced run) and the robust
  // estimate from the profile alone, against the truth.
  const double traced = row["wait_s"].get<double>();
  const double robust = row["wait_s_robust"].get<double>();
  INFO("truth " << truth << " s, trace " << traced << " s (" << traced / truth << "), robust "
                << robust << " s (" << robust / truth << ")");
  CHECK(std::abs(traced - truth) <= 0.10 * truth + 1e-3);
  CHECK(std::abs(robust - truth) <= 0.10 * truth + 1e-3);

  // Every report names that line as the profile does.
  const auto report = run({build_tree::mpidle_bin, "report", dir});
  INFO(report.err);
  CHECK_THAT(report.out, Catch::Contains(name));
  const auto html = dir + "/report.html";
  REQUIRE(run({build_tree::mpidle_bin, "report", dir, "--html", html}).status == 0);
  CHECK_THAT(read_text(html), Catch::Contains(name));
  // OTF2: the callsite attribute's string, among the archive's definitions.
  const auto otf2 = dir + "/otf2";
  REQUIRE(run({build_tree::mpidle_bin, "export", dir, "--otf2", otf2}).status == 0);
  CHECK_THAT(read_text(otf2 + "/traces.def"), Catch::Contains(name));
  // compare: a profiled run of the same program matches the line, by file and line.
  const auto profiled = scratch_dir("python_late_sender_profiled");
  REQUIRE(run_mpi(2, kPython, {program}, {{"MPIDLE_OUTPUT", profiled}}).status == 0);
  const auto compared = run({build_tree::mpidle_bin, "compare", profiled, dir});
  INFO(compared.out << compared.err);
  REQUIRE(compared.status == 0);
  int matched = 0;
  std::istringstream lines(compared.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(name) == std::string::npos) continue;
    CHECK(line.find("(only in") == std::string::npos);
    ++matched;
  }
  CHECK(matched > 0);
  // The fleet's top callsites: both runs' records at that line.
  const auto db = scratch_dir("python_fleet.sqlite");  // removed if left by a run before
  const auto ingested = run({build_tree::mpidle_bin, "fleet", "ingest", dir, profiled, "--db", db});
  INFO(ingested.err);
  REQUIRE(ingested.status == 0);
  const auto fleet = run({build_tree::mpidle_bin, "fleet", "report", "--db", db, "--json"});
  INFO(fleet.err);
  REQUIRE(fleet.status == 0);
  const auto report_json = json::parse(fleet.out);
  int jobs = 0;
  for (const auto& c : report_json["top_callsites"]) {
    if (c["function"] == "MPI_Recv" && c["location"] == name) jobs += c["jobs"].get<int>();
  }
  CHECK(jobs == 2);
  // The application is the script, not the interpreter.
  REQUIRE(report_json["by_application"].size() == 1);
  CHECK(report_json["by_application"][0]["application"] == "late_sender.py");
}
