#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
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
  const auto json = model::build_profile_json(two_ranks(), run_info());
  CHECK(json["schema"] == "mpidle-profile/1");
  const auto p = model::parse_profile(nlohmann::json::parse(json.dump()));
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
  CHECK(p.ranks[0].wait_s == Approx(0 + 8e-6));
  CHECK(p.ranks[0].wait_s_global_min == Approx(12e-6 + 8e-6));
  CHECK(p.ranks[0].first_call_wait_s == Approx(8e-6));  // 10 µs − 2 µs minimum

  const auto recv = std::find_if(p.functions.begin(), p.functions.end(),
                                 [](const auto& f) { return f.name == "MPI_Recv"; });
  REQUIRE(recv != p.functions.end());
  CHECK(recv->calls == 6);
  CHECK(recv->bytes == 48);
  CHECK(recv->wait_s_global_min == Approx(12e-6 + 0));

  // Callsites come in order of decreasing wait, with one by_rank row per rank.
  REQUIRE(p.callsites.size() == 2);
  CHECK(p.callsites[0].wait_s >= p.callsites[1].wait_s);
  CHECK(p.callsites[0].by_rank.size() == 2);
  CHECK(p.callsites[0].frames[0].module == "/bin/app");

  // One minimum per (function, size class, peer, rank).
  CHECK(p.minima.size() == 4);
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

  auto doc = model::build_profile_json(two_ranks(), run_info());
  doc["ranks"][1].erase("wait_s");
  std::ofstream(dir / "missing_field.json") << doc.dump();
  CHECK_THROWS_WITH(model::read_profile(dir / "missing_field.json"),
                    Catch::Contains("ranks[1] has no \"wait_s\""));

  doc = model::build_profile_json(two_ranks(), run_info());
  doc["run"]["wall_s"] = "long";
  std::ofstream(dir / "wrong_type.json") << doc.dump();
  CHECK_THROWS_WITH(model::read_profile(dir / "wrong_type.json"),
                    Catch::Contains("run.wall_s is not a number"));

  // A run directory is read through its profile.json.
  std::ofstream(dir / "profile.json") << model::build_profile_json(two_ranks(), run_info()).dump();
  CHECK(model::read_profile(dir).ranks.size() == 2);
  fs::remove_all(dir);
}
