// The log tree (fleet/records/log_tree.hpp) and the job record (fleet/records/job_record.hpp).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "fleet/records/job_record.hpp"
#include "fleet/records/log_tree.hpp"

using namespace mpidle::fleet;

namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("mpidle_log_tree_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("log tree: names by date, user, executable, job and time, never a path", "[log]") {
  std::tm tm{};
  tm.tm_year = 126;
  tm.tm_mon = 10;
  tm.tm_mday = 5;
  tm.tm_hour = 9;
  tm.tm_min = 8;
  tm.tm_sec = 7;
  tm.tm_isdst = -1;
  const std::time_t when = std::mktime(&tm);
  CHECK(log_day_directory("/logs", when) == fs::path("/logs/2026/11/05"));
  CHECK(log_run_name("alice", "/usr/bin/lmp_mpi", "1234", when) == "alice_lmp-mpi_1234_090807");
  CHECK(log_run_name("bob", "a.out", "", when) == "bob_a.out_nojob_090807");
  CHECK(log_run_name("../x", "/", "1/2", when) == "..-x_unknown_1-2_090807");
  CHECK(is_staging_name(".alice_a_1_000000.incomplete"));
  CHECK_FALSE(is_staging_name("alice_a_1_000000"));
}

TEST_CASE("log tree: 100 runs ending at once into one day: none lost, none replaced", "[log]") {
  const fs::path day = fresh_dir("concurrent") / "2026/11/26";
  constexpr int kRuns = 100;
  std::vector<std::thread> threads;
  std::vector<fs::path> published(kRuns);
  std::vector<std::string> errors(kRuns);
  for (int i = 0; i < kRuns; ++i) {
    threads.emplace_back([&, i] {
      // The same name for every run: the worst case, one second, one job, one user.
      auto run = reserve_log_run(day, "alice_app_nojob_120000", errors[i]);
      if (!run) return;
      std::ofstream(run->staging / "profile.json") << i;
      published[i] = publish_log_run(*run, errors[i]);
    });
  }
  for (auto& t : threads) t.join();
  std::set<fs::path> distinct;
  for (int i = 0; i < kRuns; ++i) {
    INFO("run " << i << ": " << errors[i]);
    REQUIRE_FALSE(published[i].empty());
    distinct.insert(published[i]);
    std::ifstream in(published[i] / "profile.json");
    int written = -1;
    in >> written;
    CHECK(written == i);  // each run's own file, not another's
  }
  CHECK(distinct.size() == kRuns);
  for (const auto& e : fs::directory_iterator(day)) {
    CHECK_FALSE(is_staging_name(e.path().filename().string()));
  }
}

TEST_CASE("log tree: a day, month or year made a link takes no run", "[log]") {
  // A writer of the tree made next month a link to a directory of theirs: every
  // user's runs of those days would land there. The tree's root may be a link.
  const fs::path base = fresh_dir("linked_days");
  const fs::path elsewhere = base / "elsewhere";
  fs::create_directories(elsewhere / "27");
  fs::create_directories(base / "real");
  fs::create_directory_symlink(base / "real", base / "tree");  // the site's own link
  std::string error;
  CHECK(reserve_log_run(base / "tree/2026/11/26", "alice_app_1_000000", error));
  fs::create_directories(base / "tree/2026");
  fs::create_directory_symlink(elsewhere, base / "tree/2026/12");
  for (const char* day : {"2026/12/27", "2026/12/28"}) {
    INFO(day);
    error.clear();
    CHECK_FALSE(reserve_log_run(base / "tree" / day, "alice_app_2_000000", error));
    CHECK_THAT(error, Catch::Contains("is a symbolic link or no directory"));
  }
  // Nothing was made through the link either.
  CHECK(fs::is_empty(elsewhere / "27"));
  CHECK_FALSE(fs::exists(elsewhere / "28"));
}

TEST_CASE("log tree: partial ranks join one published run whatever their order", "[log]") {
  const fs::path day = fresh_dir("partial") / "2026/11/26";
  std::string error;
  const auto run = reserve_log_run(day, "bob_app_7_010203", error);
  REQUIRE(run);
  // Rank 0 wrote before anyone published; rank 1 publishes first; rank 2 writes after.
  for (const char* rank : {"rank-0", "rank-1"}) {
    fs::create_directories(run->staging / "partial" / rank);
    std::ofstream(run->staging / "partial" / rank / "profile.json") << rank;
  }
  CHECK(publish_partial_rank(*run, (run->staging / "partial/rank-1").string(), error) ==
        run->final_path / "partial/rank-1");
  CHECK(publish_partial_rank(*run, (run->staging / "partial/rank-0").string(), error) ==
        run->final_path / "partial/rank-0");
  fs::create_directories(run->staging / "partial/rank-2");  // made again by the late writer
  std::ofstream(run->staging / "partial/rank-2/profile.json") << "rank-2";
  CHECK(publish_partial_rank(*run, (run->staging / "partial/rank-2").string(), error) ==
        run->final_path / "partial/rank-2");
  for (const char* rank : {"rank-0", "rank-1", "rank-2"}) {
    CHECK(fs::exists(run->final_path / "partial" / rank / "profile.json"));
  }
  CHECK_FALSE(fs::exists(run->staging));
}

TEST_CASE("job record: bounded whatever the rank count, totals and top rows exact", "[log]") {
  constexpr int kRanks = 10000;
  nlohmann::json profile = {{"schema", "mpidle-profile/2"},
                            {"run",
                             {{"executable", "/apps/cg.x"},
                              {"wall_s", 100.0},
                              {"ended", "MPI_Finalize"},
                              {"mode", "profile"},
                              {"minimum", "local"}}},
                            {"ranks", nlohmann::json::array()},
                            {"functions", nlohmann::json::array()},
                            {"callsites", nlohmann::json::array()}};
  for (int r = 0; r < kRanks; ++r) {
    profile["ranks"].push_back({{"rank", r},
                                {"host", "n" + std::to_string(r / 64)},
                                {"wall_s", 100.0},
                                {"mpi_s", r % 2 ? 40.0 : 20.0},
                                {"wait_s", r % 2 ? 30.0 : 10.0},
                                {"wait_s_global_min", 35.0}});
  }
  for (int c = 0; c < 500; ++c) {
    profile["callsites"].push_back(
        {{"function", "MPI_Allreduce"},
         {"visits", 1000},
         {"time_s", c},
         {"wait_s", c * 0.5},
         {"wait_s_global_min", 0.0},
         {"frames", {{{"file", "/src/cg/solve.f90"}, {"line", c}, {"function", "solve"}}}}});
  }
  for (const char* f : {"MPI_Allreduce", "MPI_Send", "MPI_Recv"}) {
    profile["functions"].push_back({{"name", f}, {"calls", 5}, {"time_s", 1.0}, {"wait_s", 0.5}});
  }
  const auto record = job_record(profile);
  CHECK(record.dump().size() < 64 * 1024);
  CHECK(record["status"] == "whole");
  CHECK(record["application"] == "cg.x");
  CHECK(record["ranks"] == kRanks);
  CHECK(record["core_hours"].get<double>() == Approx(kRanks * 100.0 / 3600));
  CHECK(record["wait_s"].get<double>() == Approx(kRanks / 2 * 40.0));
  CHECK(record["wait_share"].get<double>() == Approx(0.2));
  CHECK(record["rank_mpi_share"]["min"].get<double>() == Approx(0.2));
  CHECK(record["rank_mpi_share"]["max"].get<double>() == Approx(0.4));
  REQUIRE(record["callsites"].size() == kJobRecordCallsites);
  CHECK(record["callsites"][0]["location"] == "solve.f90:499 (solve)");
  CHECK(record["callsites"][0]["wait_s"] == 249.5);
  CHECK(record["functions"].size() == 3);

  profile["run"]["minimum"] = "global";
  profile["run"]["ended"] = "exit";
  const auto global = job_record(profile);
  CHECK(global["wait_s"].get<double>() == Approx(kRanks * 35.0));
  CHECK(global["status"] == "partial");
  CHECK_THROWS(job_record(nlohmann::json::array()));
  CHECK_THROWS(job_record({{"run", 3}}));
}

TEST_CASE("job record: a Python interpreter's job is its script's application", "[log]") {
  auto application = [](const std::string& executable, nlohmann::json args) {
    const nlohmann::json profile = {
        {"schema", "mpidle-profile/2"},
        {"run", {{"executable", executable}, {"args", std::move(args)}, {"wall_s", 1.0}}},
        {"ranks", nlohmann::json::array()}};
    return job_record(profile)["application"].get<std::string>();
  };
  CHECK(application("/usr/bin/python3.11", {"/home/alice/cfd/solve.py", "--steps", "10"}) ==
        "solve.py");
  CHECK(application("/usr/bin/python3", {"-u", "-W", "ignore", "train.py"}) == "train.py");
  // A module or a command names no script: the interpreter stays the application.
  CHECK(application("/usr/bin/python3", {"-m", "mpi4py", "app.py"}) == "python3");
  CHECK(application("/usr/bin/python3", {"-c", "print(1)"}) == "python3");
  CHECK(application("/usr/bin/python3", nlohmann::json::array()) == "python3");
  // Other programs keep their executable's name, whatever their arguments.
  CHECK(application("/apps/cg.x", {"input.py"}) == "cg.x");
}

TEST_CASE("log tree: a run directory's name says whose run it may be", "[log]") {
  const std::string mine = log_run_name("alice", "/apps/cg.x", "1234", 0);
  CHECK(log_run_name_may_be_of(mine, "alice"));
  CHECK_FALSE(log_run_name_may_be_of(mine, "bob"));
  CHECK_FALSE(log_run_name_may_be_of("alice_forged_99999_000000", "bob"));
  // A taken name's "-N" suffix, and a user name that log_run_name rewrites.
  CHECK(log_run_name_may_be_of(mine + "-2", "alice"));
  CHECK(log_run_name_may_be_of(log_run_name("a.b_c", "x", "", 0), "a.b_c"));
  CHECK_FALSE(log_run_name_may_be_of(log_run_name("a.b_c", "x", "", 0), "a.b-d"));
  // Names the log tree never makes say nothing of their user.
  CHECK(log_run_name_may_be_of("mpidle-cg-20261128-101500", "bob"));
  CHECK(log_run_name_may_be_of("run_1", "bob"));
  CHECK(log_run_name_may_be_of("my_late_sender_profiled", "bob"));  // no time at the end
  CHECK(log_run_name_may_be_of("my_late_sender_12345", "bob"));
  CHECK(log_run_name_may_be_of("my_late_sender_123456-x", "bob"));
  CHECK_FALSE(log_run_name_may_be_of("alice_x_1_123456-3", "bob"));
}
