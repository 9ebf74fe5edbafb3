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
