// Why it waited (analysis.json's root_causes, docs/analysis-format.md) on real
// ranks, against what tests/programs/delay_causes observed of its own waiting: a
// compute imbalance, a chain through a waiting rank, a large transfer. Traced, 3
// ranks; the finalize writes the root causes (a trace this small is analysed whole).
#include <catch2/catch.hpp>

#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "build_paths.hpp"
#include "process.hpp"

using namespace mpidle::test;

namespace {

struct Case {
  nlohmann::json truth;        // the program's own: wait_s per rank
  nlohmann::json root_causes;  // analysis.json's
  std::string dir;
};

Case run_case(const std::string& which) {
  const auto dir = scratch_dir("delays_" + which);
  const auto r = run_mpi(3, program("delay_causes"), {which, "--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  Case c;
  c.truth = nlohmann::json::parse(r.out);
  const auto analysis = nlohmann::json::parse(read_text(dir + "/analysis.json"));
  REQUIRE(analysis.contains("root_causes"));
  c.root_causes = analysis.at("root_causes");
  c.dir = dir;
  return c;
}

// The waiting callsite of `function` at `line` of delay_causes.c.
const nlohmann::json& site(const Case& c, const std::string& function, int line) {
  const std::string location = "delay_causes.c:" + std::to_string(line);
  for (const auto& s : c.root_causes.at("callsites")) {
    if (s.at("function") == function &&
        s.at("location").get<std::string>().rfind(location, 0) == 0) {
      return s;
    }
  }
  FAIL("no waiting at " << function << " " << location << " in " << c.root_causes.dump(1));
  return c.root_causes;
}

// The line of the first line of delay_causes.c holding `text`.
int line_of(const std::string& text) {
  const std::string source =
      read_text(std::string(MPIDLE_SOURCE_DIR) + "/tests/programs/delay_causes.c");
  const auto at = source.find(text);
  REQUIRE(at != std::string::npos);
  return 1 + static_cast<int>(std::count(source.begin(), source.begin() + at, '\n'));
}

// compare's verdict on the callsite at the line of delay_causes.c holding
// `line_text`: its "dominated by ..." line.
std::string verdict_in(const std::string& compare_text, const std::string& line_text) {
  const std::string location = "delay_causes.c:" + std::to_string(line_of(line_text));
  // The callsite's own heading ("  >> MPI_Recv   delay_causes.c:79 (main)"), not a
  // verdict that names it as where another's waiting came from.
  std::size_t at = std::string::npos;
  for (std::size_t line = 0; line < compare_text.size();) {
    const std::size_t end = std::min(compare_text.find('\n', line), compare_text.size());
    const std::string text = compare_text.substr(line, end - line);
    const std::size_t name = text.find_first_not_of(" >");
    if (name != std::string::npos && text.compare(name, 4, "MPI_") == 0 &&
        text.find(location + " ") != std::string::npos) {
      at = line;
      break;
    }
    line = end + 1;
  }
  if (at == std::string::npos) return "(no callsite " + location + ")";
  const auto verdict_at = compare_text.find("dominated by", at);
  return compare_text.substr(verdict_at, compare_text.find('\n', verdict_at) - verdict_at);
}

double seconds(const nlohmann::json& row, const char* key) {
  return row.at(key).get<double>();
}

}  // namespace

TEST_CASE("root causes: a compute imbalance is waiting for computation", "[mpi]") {
  const auto c = run_case("imbalance");
  const auto& truth = c.truth.at("wait_s");
  const double observed = truth[1].get<double>() + truth[2].get<double>();
  const auto& allreduce = site(c, "MPI_Allreduce", line_of("MPI_Allreduce(&entered"));
  INFO(allreduce.dump(1) << "\nobserved " << observed);
  CHECK(std::abs(seconds(allreduce, "wait_s") - observed) <= 0.1 * observed);
  CHECK(std::abs(seconds(allreduce, "computation_s") - observed) <= 0.1 * observed);
  // The delay is rank 0's computation before the Allreduce.
  const auto& delays = c.root_causes.at("delays");
  REQUIRE(!delays.empty());
  CHECK(delays[0].at("kind") == "computation");
  CHECK(delays[0].at("function") == "MPI_Allreduce");
  CHECK(delays[0].at("top_ranks")[0].at("rank") == 0);
  // And the callsite says where: the computation before it, on rank 0 alone.
  REQUIRE(!allreduce.at("delay_places").empty());
  CHECK(allreduce.at("delay_places")[0].at("kind") == "computation");
  CHECK(allreduce.at("delay_places")[0].at("function") == "MPI_Allreduce");
  CHECK(seconds(allreduce.at("delay_places")[0], "wait_s") >= 0.9 * observed);
  REQUIRE(allreduce.at("delay_ranks").size() == 1);
  CHECK(allreduce.at("delay_ranks")[0].at("rank") == 0);
}

TEST_CASE("root causes: rank 0's computation makes rank 1 late for rank 2 (propagated)", "[mpi]") {
  const auto c = run_case("chain");
  const auto& truth = c.truth.at("wait_s");
  const double first = truth[1].get<double>(), second = truth[2].get<double>();
  const int first_line = line_of("RECEIVE(kSmall, 0); /* waits for rank 0's computation */");
  const auto& one = site(c, "MPI_Recv", first_line);
  const auto& two = site(c, "MPI_Recv", line_of("RECEIVE(kSmall, 1); /* waits because"));
  INFO(one.dump(1) << "\n" << two.dump(1) << "\nobserved " << first << ", " << second);
  // Rank 1 waited for rank 0's computation.
  CHECK(std::abs(seconds(one, "computation_s") - first) <= 0.1 * first);
  // Rank 2 waited as long as rank 1 did because rank 1 waited (propagated from rank
  // 1's receive); the rest is rank 1's own time after its receive.
  CHECK(std::abs(seconds(two, "wait_s") - second) <= 0.1 * second);
  CHECK(std::abs(seconds(two, "propagated_s") - std::min(first, second)) <= 0.1 * second);
  REQUIRE(two.at("propagated_from").size() >= 1);
  CHECK(two.at("propagated_from")[0]
            .at("location")
            .get<std::string>()
            .rfind("delay_causes.c:" + std::to_string(first_line), 0) == 0);
  // Rank 0's computation caused both: its long-term cost holds rank 2's propagated
  // waiting too.
  const auto& delays = c.root_causes.at("delays");
  REQUIRE(!delays.empty());
  CHECK(delays[0].at("kind") == "computation");
  CHECK(delays[0].at("top_ranks")[0].at("rank") == 0);
  CHECK(seconds(delays[0], "long_term_s") >= 0.9 * (first + std::min(first, second)));
  // The HTML report shows the same split, one row per waiting callsite.
  const std::string page = c.dir + "/report.html";
  REQUIRE(run({build_tree::mpidle_bin, "report", c.dir, "--html", page}).status == 0);
  const std::string html = read_text(page);
  REQUIRE(html.find("<section id=\"root-causes\">") != std::string::npos);
  char expected[64];
  std::snprintf(expected, sizeof expected, "data-propagated-s=\"%.9g\"",
                seconds(two, "propagated_s"));
  CHECK(html.find(expected) != std::string::npos);
}

TEST_CASE("root causes: a large transfer makes its sender late for the next receiver", "[mpi]") {
  const auto c = run_case("transfer");
  const double observed = c.truth.at("wait_s")[2].get<double>();
  const auto& small =
      site(c, "MPI_Recv", line_of("RECEIVE(kSmall, 0); /* waits for rank 0's transfer"));
  INFO(small.dump(1) << "\nobserved " << observed);
  CHECK(std::abs(seconds(small, "wait_s") - observed) <= 0.1 * observed);
  CHECK(std::abs(seconds(small, "bandwidth_s") - observed) <= 0.1 * observed);
  // Where: the large send on rank 0.
  REQUIRE(!small.at("delay_places").empty());
  const auto& where = small.at("delay_places")[0];
  CHECK(where.at("kind") == "bandwidth");
  CHECK(where.at("function") == "MPI_Send");
  CHECK(where.at("location")
            .get<std::string>()
            .rfind("delay_causes.c:" + std::to_string(line_of("SEND(kLarge, 1);")), 0) == 0);
  REQUIRE(!small.at("delay_ranks").empty());
  CHECK(small.at("delay_ranks")[0].at("rank") == 0);
}

TEST_CASE(
    "compare: advice follows the root causes (network for a transfer, load for an imbalance, "
    "the first cause for a chain)",
    "[mpi]") {
  // Each case compared with a second run of itself: every callsite's verdict is
  // taken where it costs more, from that run's trace analysis.
  std::map<std::string, std::string> out;
  for (const std::string which : {"transfer", "imbalance", "chain"}) {
    std::vector<std::string> dirs;
    for (const char* run : {"a", "b"}) {
      const auto dir = scratch_dir("delays_compare_" + which + run);
      const auto r = run_mpi(3, program("delay_causes"), {which},
                             {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
      INFO(r.err);
      REQUIRE(r.status == 0);
      dirs.push_back(dir);
    }
    const auto c = run({build_tree::mpidle_bin, "compare", dirs[0], dirs[1], "--top", "20"});
    INFO(c.err);
    REQUIRE(c.status == 0);
    out[which] = c.out;
  }
  auto verdict = [&](const std::string& which, const std::string& line_text) {
    return verdict_in(out[which], line_text);
  };
  INFO(out["transfer"] << out["imbalance"] << out["chain"]);
  // Each verdict names where: the communication or computation and its rank, or the
  // callsite the waiting came from.
  CHECK_THAT(verdict("transfer", "RECEIVE(kSmall, 0); /* waits for rank 0's transfer"),
             Catch::Contains("waiting for a partner's communication (bandwidth in MPI_Send at "
                             "delay_causes.c:" +
                             std::to_string(line_of("SEND(kLarge, 1);")) + " (main) on rank 0)"));
  CHECK_THAT(out["transfer"], Catch::Contains("the network and the MPI library decide"));
  const std::string allreduce =
      "delay_causes.c:" + std::to_string(line_of("MPI_Allreduce(&entered"));
  CHECK_THAT(verdict("imbalance", "MPI_Allreduce(&entered"),
             Catch::Contains("waiting/imbalance (computation before MPI_Allreduce at " + allreduce +
                             " (main) on rank 0)"));
  CHECK_THAT(verdict("imbalance", "MPI_Allreduce(&entered"), Catch::Contains("balance the load"));
  const std::string chain_first =
      "delay_causes.c:" + std::to_string(line_of("RECEIVE(kSmall, 0); /* waits for rank 0's"));
  CHECK_THAT(
      verdict("chain", "RECEIVE(kSmall, 1); /* waits because"),
      Catch::Contains("waiting propagated from another callsite (from MPI_Recv at " + chain_first));
  CHECK_THAT(verdict("chain", "RECEIVE(kSmall, 0); /* waits for rank 0's"),
             Catch::Contains("waiting/imbalance"));
}

// The same from the trace windows, in profile mode: each callsite's wait split as its
// windowed wait states were (profile.json's callsite "root_causes"). Windows of
// 2 s: the cases' steps last 65-130 ms, longer than the default 50 ms window, a
// wait state counts only where both its ends fall into one window, and compare
// follows a callsite's split only where it rests on 8 wait states or more; the
// first window then holds most of the 20 steps.
namespace {

struct WindowedCase {
  nlohmann::json truth;    // the program's own: wait_s per rank
  nlohmann::json profile;  // profile.json
  std::string dir;
};

WindowedCase run_windowed(const std::string& which, const std::string& name = "") {
  const auto dir = scratch_dir("delays_windows_" + which + name);
  const auto r = run_mpi(3, program("delay_causes"), {which, "--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_WINDOW_MS", "2000"}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  WindowedCase c;
  c.truth = nlohmann::json::parse(r.out);
  c.profile = nlohmann::json::parse(read_text(dir + "/profile.json"));
  c.dir = dir;
  return c;
}

// The root causes of the callsite of `function` at `line` of delay_causes.c.
const nlohmann::json& windowed(const WindowedCase& c, const std::string& function, int line) {
  for (const auto& s : c.profile.at("callsites")) {
    if (s.at("function") != function || s.at("frames").empty()) continue;
    const auto& f = s.at("frames")[0];
    if (f.value("line", 0) == line &&
        f.value("file", "").find("delay_causes.c") != std::string::npos &&
        s.contains("root_causes")) {
      return s.at("root_causes");
    }
  }
  FAIL("no root causes of " << function << " at delay_causes.c:" << line << " in "
                            << c.profile.at("callsites").dump(1));
  return c.profile;
}

}  // namespace

TEST_CASE("root causes from the windows: imbalance, chain and transfer", "[mpi]") {
  {
    const auto c = run_windowed("imbalance");
    const auto& truth = c.truth.at("wait_s");
    const double observed = truth[1].get<double>() + truth[2].get<double>();
    const auto& allreduce = windowed(c, "MPI_Allreduce", line_of("MPI_Allreduce(&entered"));
    INFO("imbalance: " << allreduce.dump(1) << "\nobserved " << observed);
    CHECK(allreduce.at("wait_states").get<int>() >= 8);
    CHECK(std::abs(seconds(allreduce, "computation_s") - observed) <= 0.1 * observed);
  }
  {
    const auto c = run_windowed("chain");
    const auto& truth = c.truth.at("wait_s");
    const double first = truth[1].get<double>(), second = truth[2].get<double>();
    const auto& one = windowed(c, "MPI_Recv",
                               line_of("RECEIVE(kSmall, 0); /* waits for rank 0's computation */"));
    const auto& two = windowed(c, "MPI_Recv", line_of("RECEIVE(kSmall, 1); /* waits because"));
    INFO("chain: " << one.dump(1) << "\n"
                   << two.dump(1) << "\nobserved " << first << ", " << second);
    CHECK(std::abs(seconds(one, "computation_s") - first) <= 0.1 * first);
    CHECK(std::abs(seconds(two, "propagated_s") - std::min(first, second)) <= 0.1 * second);
  }
  {
    const auto c = run_windowed("transfer");
    const double observed = c.truth.at("wait_s")[2].get<double>();
    const auto& small =
        windowed(c, "MPI_Recv", line_of("RECEIVE(kSmall, 0); /* waits for rank 0's transfer"));
    INFO("transfer: " << small.dump(1) << "\nobserved " << observed);
    CHECK(std::abs(seconds(small, "bandwidth_s") - observed) <= 0.1 * observed);
    // The text report says why, from the windows.
    const auto report = run({build_tree::mpidle_bin, "report", c.dir});
    REQUIRE(report.status == 0);
    CHECK_THAT(report.out, Catch::Contains("why it waited (delay analysis of the trace windows"));
  }
}

TEST_CASE("compare: advice from the windows' root causes (profile mode)", "[mpi]") {
  // As the traced cases: each compared with a second run of itself.
  std::map<std::string, std::string> out;
  for (const std::string which : {"transfer", "imbalance"}) {
    const auto a = run_windowed(which, "a"), b = run_windowed(which, "b");
    const auto c = run({build_tree::mpidle_bin, "compare", a.dir, b.dir, "--top", "20"});
    INFO(c.err);
    REQUIRE(c.status == 0);
    out[which] = c.out;
  }
  auto verdict = [&](const std::string& which, const std::string& line_text) {
    return verdict_in(out[which], line_text);
  };
  INFO(out["transfer"] << out["imbalance"]);
  CHECK_THAT(verdict("transfer", "RECEIVE(kSmall, 0); /* waits for rank 0's transfer"),
             Catch::Contains("waiting for a partner's communication"));
  CHECK_THAT(verdict("imbalance", "MPI_Allreduce(&entered"), Catch::Contains("waiting/imbalance"));
  CHECK_THAT(out["imbalance"], Catch::Contains("waiting in A by root cause: computation"));
}
