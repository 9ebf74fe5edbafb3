// mpidle analyze on real trace runs: the trace-based wait of the examples within
// 5% of the waiting they measured themselves, an accuracy table that agrees with
// profile.json, analysis.json valid against the schema, and mpidle report
// showing it.
#include <catch2/catch.hpp>

#include <map>

#include "process.hpp"
#include "rank_waits.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

std::string location_of(const nlohmann::json& frames) {
  if (frames.empty()) return "?";
  const auto& f = frames[0];
  const std::string file = f["file"];
  const std::string base = file.substr(file.rfind('/') + 1);
  return base + ":" + std::to_string(f["line"].get<int>()) + " (" +
         f["function"].get<std::string>() + ")";
}

nlohmann::json analyze(const std::string& dir) {
  const auto a = run({build_tree::mpidle_bin, "analyze", dir});
  INFO(a.err);
  REQUIRE(a.status == 0);
  CHECK(a.out.find("accuracy of the profile's wait estimates") != std::string::npos);
  const auto v =
      run({MPIDLE_SYSTEM_PYTHON, std::string(MPIDLE_SOURCE_DIR) + "/scripts/validate-json.py",
           std::string(MPIDLE_SOURCE_DIR) + "/docs/profile.schema.json", dir + "/analysis.json"});
  INFO(v.out << v.err);
  CHECK(v.status == 0);
  return nlohmann::json::parse(read_text(dir + "/analysis.json"));
}

// The accuracy table's estimate columns are profile.json's, per (function, location).
void check_accuracy_columns(const std::string& dir, const nlohmann::json& analysis) {
  const auto profile = nlohmann::json::parse(read_text(dir + "/profile.json"));
  struct Estimates {
    double first = 0, second = 0, robust = 0;
  };
  std::map<std::pair<std::string, std::string>, Estimates> expected;
  for (const auto& c : profile["callsites"]) {
    auto& e = expected[{c["function"], location_of(c["frames"])}];
    e.first += c["wait_s_minimum"].get<double>();
    e.second += c["wait_s_global_min"].get<double>();
    e.robust += c["wait_s_robust"].get<double>();
  }
  std::size_t matched = 0;
  for (const auto& row : analysis["accuracy"]["callsites"]) {
    auto it = expected.find({row["function"], row["location"]});
    if (it == expected.end()) continue;
    ++matched;
    CHECK(row["minimum_local_s"].get<double>() == Approx(it->second.first).margin(1e-12));
    CHECK(row["minimum_global_s"].get<double>() == Approx(it->second.second).margin(1e-12));
    CHECK(row["robust_s"].get<double>() == Approx(it->second.robust).margin(1e-12));
    CHECK(
        row["difference_s"].get<double>() ==
        Approx(row["minimum_local_s"].get<double>() - row["trace_s"].get<double>()).margin(1e-12));
  }
  CHECK(matched == expected.size());
}

}  // namespace

TEST_CASE("analyze: late sender within 5% of the waiting the program measured", "[mpi]") {
  const auto dir = scratch_dir("analyze_late_sender");
  const auto r = run_mpi(2, example("late_sender"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const double truth = truth_of(r.out)["receiver_wait_s"];
  const auto a = analyze(dir);
  CHECK(a["schema"] == "mpidle-analysis/2");
  CHECK(a["totals"]["late_sender"].get<double>() == Approx(truth).epsilon(0.05));
  CHECK(a["callsites"][0]["function"] == "MPI_Recv");
  // Bounded in P: the waiting ranks summed up per callsite; each one in the side file.
  const auto& ranks = a["callsites"][0]["ranks"];
  CHECK(ranks["waiting"] == 1);
  CHECK(ranks["max_rank"] == 1);  // the receiver
  CHECK(ranks["max_s"].get<double>() == Approx(a["callsites"][0]["wait_s"].get<double>()));
  CHECK(ranks["top"].size() == 1);
  CHECK_FALSE(a["callsites"][0].contains("by_rank"));
  const auto rows = rank_waits_of(dir);
  double late_sender = 0;
  for (const auto& [function, location, rank, seconds] : rows) late_sender += seconds.at(0);
  CHECK(late_sender == Approx(a["totals"]["late_sender"].get<double>()));
  check_accuracy_columns(dir, a);
  // mpidle report shows the analysis from now on.
  const auto report = run({build_tree::mpidle_bin, "report", dir});
  CHECK(report.out.find("wait states from the synchronized trace") != std::string::npos);
}

TEST_CASE("analyze: wait at NxN within 5% of the imbalance the program measured", "[mpi]") {
  const auto dir = scratch_dir("analyze_imbalance");
  const auto r = run_mpi(2, example("imbalance_allreduce"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const double truth = truth_of(r.out)["total_wait_s"];
  // Time in the Allreduces after the last rank arrived: microseconds on a quiet
  // node, more when other load took a rank's core.
  const double excess = truth_of(r.out)["completion_excess_s"];
  const auto a = analyze(dir);
  CHECK(a["totals"]["wait_nxn"].get<double>() == Approx(truth).epsilon(0.05));
  CHECK(a["callsites"][0]["function"] == "MPI_Allreduce");
  // Rank 0 always waits: its local minimum holds waiting, the global one does not.
  std::string reason;
  for (const auto& row : a["accuracy"]["callsites"]) {
    if (row["function"] != "MPI_Allreduce") continue;
    reason = row["reason"].get<std::string>();
    INFO("reason: " << reason);
    // The minimum method's estimates take lost cores for waiting; the trace's exact
    // wait does not. Which estimate is closer, and so the reason given, says something
    // only where the program saw no such loss.
    if (excess < 2e-3) {
      CHECK((reason.rfind("static imbalance", 0) == 0 || reason == "agree"));
      CHECK(std::abs(row["minimum_global_s"].get<double>() - row["trace_s"].get<double>()) <=
            std::abs(row["minimum_local_s"].get<double>() - row["trace_s"].get<double>()) + 1e-4);
    } else {
      WARN("other load took " << excess << " s inside the Allreduces: reason ('" << reason
                              << "') and estimates not checked");
    }
  }
  CHECK_FALSE(reason.empty());
  check_accuracy_columns(dir, a);
}

TEST_CASE("analyze: bad input", "[mpi]") {
  CHECK(run({build_tree::mpidle_bin, "analyze", "/nonexistent"}).status == 2);
  const auto dir = scratch_dir("analyze_profile_only");
  REQUIRE(run_mpi(2, example("late_sender"), {}, {{"MPIDLE_OUTPUT", dir}}).status == 0);
  const auto a = run({build_tree::mpidle_bin, "analyze", dir});
  CHECK(a.status == 2);
  CHECK(a.err.find("not a trace run") != std::string::npos);
}
