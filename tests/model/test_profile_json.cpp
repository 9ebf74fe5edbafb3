#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
#include "model/json_fields.hpp"
#include "model/profile_reader.hpp"
#include "model/profile_writer.hpp"
#include "model/table_merge.hpp"

using namespace mpidle;

namespace {
model::ProfileTables two_ranks() {
  auto t = test::tables_for_rank(0, 15e-6, 5e-6);
  model::merge_tables(t, test::tables_for_rank(1, 3e-6, 1e-6));
  return t;
}
model::RunInfo run_info() {
  model::RunInfo run;
  run.executable = "/bin/app";
  run.args = {"-x", "1"};
  run.mpi_library = "MPICH Version: 4.0.2";
  run.start = "2026-11-22T06:00:00Z";
  run.wall_s = 1.0;
  run.timer = "tsc";
  run.timer_resolution_s = 1e-9;
  run.per_call_overhead_s = 20e-9;
  return run;
}
}  // namespace

TEST_CASE("profile.json written and read back gives the same numbers", "[model]") {
  const auto doc = model::build_profile(two_ranks(), run_info());
  const auto& json = doc.profile;
  CHECK(json["schema"] == "mpidle-profile/2");
  auto p = model::parse_profile(nlohmann::json::parse(json.dump()));
  CHECK(p.run.executable == "/bin/app");
  CHECK(p.run.args == std::vector<std::string>{"-x", "1"});
  CHECK(p.run.ranks == 2);
  CHECK(p.run.hosts == std::vector<std::string>{"node0", "node1"});
  CHECK(p.run.minimum == "local");
  // 5 calls per rank → 10 calls × 20 ns.
  CHECK(p.run.overhead_total_s == Approx(10 * 20e-9));

  REQUIRE(p.ranks.size() == 2);
  CHECK(p.ranks[0].calls == 5);
  CHECK(p.ranks[0].mpi_s == Approx(15e-6 + 12e-6));
  CHECK(p.run.wait_estimate == "robust");
  CHECK(p.ranks[0].estimates.wait_s_minimum == Approx(0 + 8e-6));
  // No duration histograms here: the robust baseline is the global minimum.
  CHECK(p.ranks[0].wait_s == Approx(12e-6 + 8e-6));
  CHECK(p.ranks[0].estimates.wait_s_robust == p.ranks[0].wait_s);
  CHECK(p.ranks[0].wait_s_global_min == Approx(12e-6 + 8e-6));
  CHECK(p.ranks[0].first_call_wait_s == Approx(8e-6));  // 10 µs − 2 µs minimum

  const auto recv = std::find_if(p.functions.begin(), p.functions.end(),
                                 [](const auto& f) { return f.name == "MPI_Recv"; });
  REQUIRE(recv != p.functions.end());
  CHECK(recv->calls == 6);
  CHECK(recv->bytes == 48);
  CHECK(recv->wait_s_global_min == Approx(12e-6 + 0));

  // Callsites come in order of decreasing wait, with statistics over the ranks.
  REQUIRE(p.callsites.size() == 2);
  CHECK(p.callsites[0].wait_s >= p.callsites[1].wait_s);
  CHECK(p.callsites[0].frames[0].module == "/bin/app");
  const auto& barrier = p.callsites[0];  // 8 µs on each rank
  CHECK(barrier.function == "MPI_Barrier");
  CHECK(barrier.rank_stats.count == 2);
  CHECK(barrier.rank_stats.median_s == Approx(8e-6));
  // Rank 0 waited 12 µs against the global baseline (0 against its own minimum).
  const auto& recv_site = p.callsites[1];
  CHECK(recv_site.rank_stats.max_s == Approx(12e-6));
  CHECK(recv_site.estimates.wait_s_minimum == Approx(0).margin(1e-12));

  // The per-rank breakdown comes from the matrix file.
  CHECK(p.callsites[0].by_rank.empty());
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mpidle-test-profile-matrix";
  fs::create_directories(dir);
  std::ofstream(dir / "callsite_ranks.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(doc.rank_matrix.data()),
             static_cast<std::streamsize>(doc.rank_matrix.size()));
  REQUIRE(model::attach_rank_matrix(p, dir));
  REQUIRE(p.callsites[0].by_rank.size() == 2);
  CHECK(p.callsites[0].by_rank[1].rank == 1);
  CHECK(p.callsites[0].by_rank[1].visits == 2);
  CHECK(p.callsites[0].by_rank[1].wait_s == Approx(8e-6));
  // A matrix of another shape is refused, and the breakdown stays empty.
  p.callsites.pop_back();
  CHECK_FALSE(model::attach_rank_matrix(p, dir));
  CHECK(p.rank_matrix_missing);
  fs::remove_all(dir);

  // One minimum per (function, size class, communicator shape) over all ranks.
  REQUIRE(p.minima.size() == 2);
  const auto& recv_min = p.minima[1];
  CHECK(recv_min.function == "MPI_Recv");
  CHECK(recv_min.min_s == 1e-6);
  CHECK(recv_min.rank == 1);
  CHECK(recv_min.count == 6);
  CHECK(recv_min.ranks == 2);
}

TEST_CASE("a version 1 profile is still read, its statistics from by_rank", "[model]") {
  const auto doc = nlohmann::json::parse(R"({
    "schema": "mpidle-profile/1",
    "run": {"executable": "/bin/app", "args": [], "ranks": 2, "hosts": ["n"],
            "mpi_library": "MPICH", "start": "2026-11-01T00:00:00Z", "wall_s": 1.0,
            "timer": "tsc", "timer_resolution_s": 1e-9, "mode": "profile", "minimum": "local",
            "callsite_depth": 1,
            "overhead": {"per_call_s": 2e-8, "total_s": 1e-7, "fraction": 1e-7}},
    "ranks": [],
    "functions": [],
    "callsites": [{"id": 0, "function": "MPI_Recv",
                   "frames": [{"module": "/bin/app", "offset": 16, "function": "main",
                               "file": "a.c", "line": 3}],
                   "visits": 4, "time_s": 3.0, "wait_s": 2.5, "wait_s_global_min": 2.5,
                   "by_rank": [{"rank": 0, "visits": 2, "time_s": 0.5, "wait_s": 0.5},
                               {"rank": 1, "visits": 2, "time_s": 2.5, "wait_s": 2.0}]}],
    "minima": [{"function": "MPI_Recv", "size_class": 3, "peer": 1, "rank": 0,
                "min_s": 1e-6, "count": 2}]
  })");
  const auto p = model::parse_profile(doc);
  CHECK(p.schema_version == 1);
  REQUIRE(p.callsites.size() == 1);
  CHECK(p.callsites[0].by_rank.size() == 2);
  CHECK(p.callsites[0].rank_stats.max_rank == 1);
  CHECK(p.callsites[0].rank_stats.median_s == Approx(1.25));
  REQUIRE(p.minima.size() == 1);
  CHECK(p.minima[0].peer == 1);
  CHECK(p.minima[0].ranks == 1);
}

TEST_CASE("bad profile input gives one clear error", "[model]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mpidle-test-profile-json";
  fs::create_directories(dir);

  CHECK_THROWS_WITH(model::read_profile(dir / "missing.json"), Catch::Contains("cannot open"));

  std::ofstream(dir / "garbage.json") << "{ not json";
  CHECK_THROWS_WITH(model::read_profile(dir / "garbage.json"), Catch::Contains("not valid JSON"));

  std::ofstream(dir / "other.json") << R"({"schema": "something-else/3"})";
  CHECK_THROWS_WITH(model::read_profile(dir / "other.json"), Catch::Contains("unsupported schema"));

  auto doc = model::build_profile(two_ranks(), run_info()).profile;
  doc["ranks"][1].erase("wait_s");
  std::ofstream(dir / "missing_field.json") << doc.dump();
  CHECK_THROWS_WITH(model::read_profile(dir / "missing_field.json"),
                    Catch::Contains("ranks[1] has no \"wait_s\""));

  doc = model::build_profile(two_ranks(), run_info()).profile;
  doc["run"]["wall_s"] = "long";
  std::ofstream(dir / "wrong_type.json") << doc.dump();
  CHECK_THROWS_WITH(model::read_profile(dir / "wrong_type.json"),
                    Catch::Contains("run.wall_s is not a number"));

  doc = model::build_profile(two_ranks(), run_info()).profile;
  doc["callsites"][0]["durations"] = {{1e-6, 3, 3.5e-6}, {2e-6, "x", 1}};
  std::ofstream(dir / "bad_bin.json") << doc.dump();
  CHECK_THROWS_WITH(
      model::read_profile(dir / "bad_bin.json"),
      Catch::Contains("callsites[0].durations: a bin is not [lower_s, count, sum_s]"));
  doc["callsites"][0]["durations"] = {{2e-6, 3, 7e-6}, {1e-6, 3, 3.5e-6}};
  std::ofstream(dir / "bins_out_of_order.json") << doc.dump();
  CHECK_THROWS_WITH(model::read_profile(dir / "bins_out_of_order.json"),
                    Catch::Contains("out of order"));
  doc = model::build_profile(two_ranks(), run_info()).profile;
  doc["run"]["wait_estimate"] = "median";
  std::ofstream(dir / "bad_estimate.json") << doc.dump();
  CHECK_THROWS_WITH(model::read_profile(dir / "bad_estimate.json"),
                    Catch::Contains("run.wait_estimate"));

  // A run directory is read through its profile.json.
  std::ofstream(dir / "profile.json")
      << model::build_profile(two_ranks(), run_info()).profile.dump();
  CHECK(model::read_profile(dir).ranks.size() == 2);
  fs::remove_all(dir);
}

TEST_CASE("trace.file cannot lead out of the run directory", "[model]") {
  namespace fs = std::filesystem;
  // A real traced run's profile.json (the fuzzers' seed).
  std::ifstream in(fs::path(MPIDLE_SOURCE_DIR) / "tests/fuzz/corpus/profile/loop_nest.json");
  auto doc = model::read_json(in);
  REQUIRE(doc.contains("trace"));
  const fs::path dir = fs::temp_directory_path() / "mpidle-test-trace-file";
  fs::create_directories(dir);
  std::ofstream(dir / "profile.json") << doc.dump();
  CHECK(model::read_profile(dir).trace->file == "trace.mpidle");
  for (const char* file : {"../../../../etc/passwd", "/etc/passwd", "..", "", "sub/trace.mpidle"}) {
    INFO(file);
    doc["trace"]["file"] = file;
    std::ofstream(dir / "profile.json") << doc.dump();
    CHECK_THROWS_WITH(model::read_profile(dir),
                      Catch::Contains("trace.file must name a file in the run directory"));
  }
  fs::remove_all(dir);
}

TEST_CASE("JSON nested past the readers' limit is refused as not JSON, at once", "[model]") {
  auto nested = [](int depth) {
    return std::string(static_cast<std::size_t>(depth), '[') +
           std::string(static_cast<std::size_t>(depth), ']');
  };
  CHECK_FALSE(model::read_json(nested(100)).is_discarded());
  CHECK_FALSE(model::read_json(nested(model::kMaxJsonDepth)).is_discarded());
  CHECK(model::read_json(nested(model::kMaxJsonDepth + 1)).is_discarded());
  CHECK(model::read_json(nested(100'000)).is_discarded());
  CHECK(model::read_json(std::string("{\"a\": [1, 2")).is_discarded());
  // A profile.json nested 10^5 levels deep: one error, not minutes of work.
  const auto dir = std::filesystem::temp_directory_path() / "mpidle-test-deep-json";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "profile.json") << "{\"schema\": " << nested(100'000) << "}";
  CHECK_THROWS_AS(model::read_profile(dir), model::ProfileError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("duration histograms and every wait estimate survive profile.json", "[model]") {
  auto tables = two_ranks();
  // Rank 0's receives: 4 calls that did not wait (1.5 µs) and 2 that waited (~40 µs).
  for (auto& rank : tables.ranks) {
    for (auto& e : rank.entries) {
      e.durations.clear();
      const double each = e.time_s / static_cast<double>(e.visits);
      model::add_durations(e.durations, e.visits, each * static_cast<double>(e.visits));
    }
  }
  const auto doc = model::build_profile(tables, run_info()).profile;
  const auto p = model::parse_profile(nlohmann::json::parse(doc.dump()));
  CHECK(p.run.wait_estimate == "robust");
  std::uint64_t binned = 0, visits = 0;
  for (const auto& c : p.callsites) {
    binned += model::count_of(c.durations);
    visits += c.visits;
    CHECK(model::valid_histogram(c.durations));
    CHECK(c.wait_s == c.estimates.wait_s_robust);
  }
  CHECK(binned == visits);
  for (const auto& m : p.minima) {
    CHECK(m.baseline_s >= m.min_s);
    CHECK(model::count_of(m.durations) == m.count);
  }
  for (const auto& f : p.functions) {
    CHECK(f.estimates.wait_s_robust + f.estimates.variation_s + f.estimates.transfer_s <=
          f.time_s + 1e-12);
  }
}
