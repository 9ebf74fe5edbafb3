// mpidle export --chrome on real trace runs: the timeline parses, has one track
// per rank, keeps every slice inside its rank's run, and draws one arrow per
// message, from a send to its receive, never backwards in time.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "model/trace_file.hpp"
#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

struct Slice {
  double ts = 0, end = 0;
  std::string name;
};

// The MPI slice of `pid` that holds time `ts` (slices of one track do not overlap).
const Slice* slice_at(const std::map<int, std::vector<Slice>>& slices, int pid, double ts) {
  auto it = slices.find(pid);
  if (it == slices.end()) return nullptr;
  for (const auto& s : it->second) {
    if (s.ts <= ts && ts <= s.end) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("export: Chrome trace of a loop nest, one track per rank, one arrow per message",
          "[mpi]") {
  const auto dir = scratch_dir("export_loop_nest");
  const auto r = run_mpi(2, example("loop_nest"), {"--outer", "7", "--inner", "3", "--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const int messages_per_rank =
      truth["outer_iterations"].get<int>() * truth["inner_exchanges"].get<int>();

  // Sendrecv exchanges are no cycles for clock synchronization.
  const auto profile = nlohmann::json::parse(read_text(dir + "/profile.json"));
  CHECK(profile["sync"]["unresolved"] == 0);
  CHECK(profile["sync"]["violations_after"] == 0);

  const std::string out = dir + "/timeline.json";
  const auto e = run({build_tree::mpidle_bin, "export", dir, "--chrome", out});
  REQUIRE(e.status == 0);
  const auto doc = nlohmann::json::parse(read_text(out));
  REQUIRE(doc.contains("traceEvents"));

  // Each rank's run on the synchronized clock, from the trace file, in µs from
  // the first event of the run.
  const auto trace = model::read_trace(std::filesystem::path(dir) / "trace.mpidle");
  std::int64_t t0 = INT64_MAX;
  for (const auto& rank : trace.ranks) t0 = std::min(t0, rank.synced.front());
  std::map<int, std::pair<double, double>> span;
  for (const auto& rank : trace.ranks) {
    const auto [lo, hi] = std::minmax_element(rank.synced.begin(), rank.synced.end());
    span[rank.rank] = {(*lo - t0) * 1e-3, (*hi - t0) * 1e-3};
  }

  std::set<int> named, with_slices;
  std::map<int, std::vector<Slice>> mpi_slices;
  std::map<long, nlohmann::json> starts, finishes;
  for (const auto& ev : doc["traceEvents"]) {
    const std::string ph = ev["ph"];
    const int pid = ev["pid"];
    if (ph == "M" && ev["name"] == "process_name") {
      named.insert(pid);
      CHECK(ev["args"]["name"] == "rank " + std::to_string(pid));
    } else if (ph == "X") {
      with_slices.insert(pid);
      CHECK(ev["tid"] == 0);
      const double ts = ev["ts"], end = ts + ev["dur"].get<double>();
      CHECK(ev["dur"].get<double>() >= 0);
      // Inside the rank's run (to the microsecond rounding of the export).
      CHECK(ts >= span[pid].first - 0.001);
      CHECK(end <= span[pid].second + 0.001);
      if (ev["cat"] == "mpi") {
        mpi_slices[pid].push_back({ts, end, ev["name"]});
        CHECK(ev["args"].contains("callsite"));
        if (ev["name"] == "MPI_Sendrecv") {
          CHECK(ev["args"]["peer"] == 1 - pid);
          CHECK(ev["args"]["bytes"] == 2 * 16 * 8);  // 16 doubles sent, 16 received
        }
      }
    } else if (ph == "s") {
      starts[ev["id"]] = ev;
    } else if (ph == "f") {
      finishes[ev["id"]] = ev;
    }
  }
  CHECK(named == std::set<int>{0, 1});
  CHECK(with_slices == std::set<int>{0, 1});

  // Every Sendrecv sends one message: 2 ranks × outer × inner arrows.
  CHECK(starts.size() == static_cast<std::size_t>(2 * messages_per_rank));
  CHECK(finishes.size() == starts.size());
  for (const auto& [id, s] : starts) {
    INFO("flow " << id);
    REQUIRE(finishes.count(id));
    const auto& f = finishes[id];
    CHECK(f["bp"] == "e");
    CHECK(s["pid"] != f["pid"]);
    CHECK(s["ts"].get<double>() <= f["ts"].get<double>());
    const Slice* from = slice_at(mpi_slices, s["pid"], s["ts"]);
    const Slice* to = slice_at(mpi_slices, f["pid"], f["ts"]);
    REQUIRE(from);
    REQUIRE(to);
    CHECK(from->name == "MPI_Sendrecv");
    CHECK(to->name == "MPI_Sendrecv");
  }
}

TEST_CASE("export: Send and Recv of the late sender, and bad input", "[mpi]") {
  const auto dir = scratch_dir("export_late_sender");
  REQUIRE(run_mpi(2, example("late_sender"), {"--json"},
                  {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}})
              .status == 0);
  const std::string out = dir + "/timeline.json";
  REQUIRE(run({build_tree::mpidle_bin, "export", dir, "--chrome", out}).status == 0);
  const auto doc = nlohmann::json::parse(read_text(out));
  std::map<int, std::vector<Slice>> mpi_slices;
  std::vector<nlohmann::json> flows_from, flows_to;
  for (const auto& ev : doc["traceEvents"]) {
    if (ev["ph"] == "X" && ev["cat"] == "mpi") {
      mpi_slices[ev["pid"]].push_back(
          {ev["ts"], ev["ts"].get<double>() + ev["dur"].get<double>(), ev["name"]});
    }
    if (ev["ph"] == "s") flows_from.push_back(ev);
    if (ev["ph"] == "f") flows_to.push_back(ev);
  }
  REQUIRE(flows_from.size() == 60);  // the example sends 60 messages
  for (std::size_t i = 0; i < flows_from.size(); ++i) {
    const Slice* from = slice_at(mpi_slices, flows_from[i]["pid"], flows_from[i]["ts"]);
    const Slice* to = slice_at(mpi_slices, flows_to[i]["pid"], flows_to[i]["ts"]);
    REQUIRE(from);
    REQUIRE(to);
    CHECK(from->name == "MPI_Send");
    CHECK(to->name == "MPI_Recv");
  }

  const auto profile_only = scratch_dir("export_profile_only");
  REQUIRE(run_mpi(2, example("late_sender"), {}, {{"MPIDLE_OUTPUT", profile_only}}).status == 0);
  const auto not_trace = run({build_tree::mpidle_bin, "export", profile_only, "--chrome", out});
  CHECK(not_trace.status == 2);
  CHECK(not_trace.err.find("not a trace run") != std::string::npos);
  CHECK(run({build_tree::mpidle_bin, "export", dir}).status == 2);
  CHECK(run({build_tree::mpidle_bin, "export", "/nonexistent", "--chrome", out}).status == 2);
}

TEST_CASE("export: --ranks and --window keep the Chrome file to what is selected", "[mpi]") {
  const auto dir = scratch_dir("export_selection");
  REQUIRE(run_mpi(3, example("loop_nest"), {"--outer", "9", "--inner", "3"},
                  {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}})
              .status == 0);
  const auto trace = model::read_trace(std::filesystem::path(dir) / "trace.mpidle");
  std::int64_t t0 = INT64_MAX;
  for (const auto& rank : trace.ranks) t0 = std::min(t0, rank.synced.front());
  // From rank 0's call a third into its run to the one two thirds in.
  const auto& zero = trace.ranks.at(0).synced;
  const double from = (zero[2 * (zero.size() / 6)] - t0) * 1e-9;
  const double to = (zero[2 * (zero.size() / 3)] - t0) * 1e-9;
  const std::string out = dir + "/window.json";
  const auto e = run({build_tree::mpidle_bin, "export", dir, "--chrome", out, "--ranks", "0-1",
                      "--window", std::to_string(from) + ":" + std::to_string(to)});
  INFO(e.err);
  REQUIRE(e.status == 0);
  const auto doc = nlohmann::json::parse(read_text(out));
  std::map<int, long> mpi_slices;
  std::set<int> thread_named;
  long flows = 0;
  for (const auto& ev : doc["traceEvents"]) {
    const int pid = ev["pid"];
    CHECK((pid == 0 || pid == 1));
    CHECK(ev.contains("cat"));
    CHECK(ev.contains("tid"));
    if (ev["ph"] == "M") {
      CHECK(ev["cat"] == "__metadata");
      if (ev["name"] == "thread_name") thread_named.insert(pid);
    } else if (ev["ph"] == "X") {
      const double ts = ev["ts"].get<double>() * 1e-6, end = ts + ev["dur"].get<double>() * 1e-6;
      CHECK(end >= from - 1e-6);
      CHECK(ts < to + 1e-6);
      if (ev["cat"] == "mpi") ++mpi_slices[pid];
    } else if (ev["ph"] == "s") {
      ++flows;
    }
  }
  CHECK(thread_named == std::set<int>{0, 1});
  // Every call of ranks 0 and 1 that overlaps the window, and no other.
  for (int r = 0; r < 2; ++r) {
    const auto& rank = trace.ranks[static_cast<std::size_t>(r)];
    long expected = 0;
    for (std::size_t k = 0; k < rank.records.size(); ++k) {
      if (rank.records[k].extra != 0) continue;
      const double enter = (rank.synced[2 * k] - t0) * 1e-9,
                   exit = (rank.synced[2 * k + 1] - t0) * 1e-9;
      expected += exit >= from && enter < to;
    }
    INFO("rank " << r);
    CHECK(expected > 10);
    // (The window's edges are compared at the export's microsecond rounding.)
    CHECK(std::abs(mpi_slices[r] - expected) <= 2);
  }
  // The ring 0 → 1 → 2 → 0: only 0 → 1 has both ends selected.
  CHECK(flows > 0);
  CHECK(flows <= mpi_slices[0]);

  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--chrome", out + "2", "--ranks", "3-1"},
        {"--chrome", out + "2", "--ranks", "a"},
        {"--chrome", out + "2", "--window", "2:1"},
        {"--chrome", out + "2", "--window", "abc"},
        {"--otf2", dir + "/otf2", "--ranks", "0"}}) {
    std::vector<std::string> argv = {build_tree::mpidle_bin, "export", dir};
    argv.insert(argv.end(), bad.begin(), bad.end());
    const auto r = run(argv);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}
