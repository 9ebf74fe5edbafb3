#include "fault_checks.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <sstream>

namespace mpidle::test {

Pair both(int ranks, const std::string& program, const std::vector<std::string>& args,
          const std::map<std::string, std::string>& env) {
  Pair p;
  p.bare = run_mpi(ranks, program, args, {}, false);
  p.profiled = run_mpi(ranks, program, args, env);
  return p;
}

std::string without_pids(const std::string& text) {
  static const std::regex pid(R"(PID \d+)");
  return std::regex_replace(text, pid, "PID _");
}

void check_same_for_the_application(const Pair& p) {
  INFO("bare stderr: " << p.bare.err);
  INFO("profiled stderr: " << p.profiled.err);
  CHECK(p.bare.status != kKilledAtDeadline);
  CHECK(p.profiled.status == p.bare.status);
  CHECK(without_pids(p.profiled.out) == without_pids(p.bare.out));
}

namespace {

// Stdout without the lines a launcher writes when a rank ends badly (MPICH's
// banner and its trailer).
std::string application_lines(const std::string& out) {
  static const std::regex launcher(
      R"(^(=.*|YOUR APPLICATION TERMINATED.*|This typically refers to a problem.*|)"
      R"(Please see the FAQ page.*|\s*)$)");
  std::string kept;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_match(line, launcher)) kept += line + "\n";
  }
  return kept;
}

bool launcher_killed_a_rank(const Outcome& r) {
  for (const char* said : {"CLEANING UP REMAINING PROCESSES", "exiting improperly",
                           "has exited due to process rank", "killed"}) {
    if (r.out.find(said) != std::string::npos || r.err.find(said) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

void check_same_for_the_application_ending_apart(const Pair& p) {
  INFO("bare status " << p.bare.status << ", stdout:\n" << p.bare.out << "stderr:\n" << p.bare.err);
  INFO("profiled status " << p.profiled.status << ", stdout:\n"
                          << p.profiled.out << "stderr:\n"
                          << p.profiled.err);
  CHECK(p.bare.status != kKilledAtDeadline);
  CHECK(p.profiled.status != kKilledAtDeadline);
  CHECK(application_lines(p.profiled.out) == application_lines(p.bare.out));
  CHECK(p.bare.status != 0);
  CHECK(p.profiled.status != 0);
  if (p.profiled.status != p.bare.status) {
    CHECK((launcher_killed_a_rank(p.profiled) || launcher_killed_a_rank(p.bare)));
  }
}

void check_only_mpidle_lines(const std::string& bare_err, const std::string& err) {
  static const std::regex number(R"(\d+)");
  std::set<std::string> bare_lines;
  std::istringstream bare(bare_err);
  for (std::string line; std::getline(bare, line);) {
    bare_lines.insert(std::regex_replace(line, number, "N"));
  }
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (bare_lines.count(std::regex_replace(line, number, "N")) == 0) {
      CHECK(line.rfind("mpidle", 0) == 0);
    }
  }
}

}  // namespace mpidle::test
