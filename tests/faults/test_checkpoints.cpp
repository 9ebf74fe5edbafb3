// Checkpoints against real kills (docs/centre.md, "Checkpoints"): SIGKILL to one
// rank, to every rank at once, a rank killed halfway through writing one, and a
// deadlocked job that `mpidle status` shows while it hangs. The truth is the
// program's own: `dies linger` counts its loop steps in a shared mapping that
// outlives it, with the count at the end of every 10 ms since its start, so each
// rank's checkpoint is checked against what the rank had done when the checkpoint
// says it was written, and that time against the moment of the kill.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <regex>
#include <thread>

#include "fault_checks.hpp"
#include "model/checkpoint_merge.hpp"
#include "process.hpp"
#include "steps_record.hpp"

using namespace mpidle;
using namespace mpidle::test;
namespace fs = std::filesystem;

namespace {

// The job ended well before the harness's 60 s deadline. (Open MPI's launcher
// reports a rank killed by SIGKILL as 137, the status the harness gives a run it
// killed at its deadline: the time tells them apart.)
bool ended_before_deadline(std::chrono::steady_clock::time_point started) {
  return std::chrono::steady_clock::now() - started < std::chrono::seconds(40);
}

// Waits until every rank of `ranks` has looped for `seconds` by its own clock;
// their records then.
std::vector<StepsRecord> wait_for_steps(const std::string& prefix, int ranks, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<StepsRecord> records;
    for (int r = 0; r < ranks; ++r) {
      if (auto s = steps_of(prefix, r)) records.push_back(*s);
    }
    if (static_cast<int>(records.size()) == ranks &&
        std::all_of(records.begin(), records.end(), [&](const StepsRecord& s) {
          return unix_now_s() - static_cast<double>(s.start_ns) * 1e-9 >= seconds;
        })) {
      return records;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL("the ranks did not loop for " << seconds << " s");
  return {};
}

// Each rank's latest checkpoint holds the calls the rank had made when it says it
// was written, and was written within an interval (and a grace) of `ended_unix_s`.
// Returns the checkpoints read.
std::vector<model::Checkpoint> check_checkpoints(const std::string& run, const std::string& steps,
                                                 int ranks, double ended_unix_s,
                                                 double interval_s) {
  std::vector<std::string> unreadable;
  auto checkpoints = model::read_checkpoints(run, unreadable);
  INFO("unreadable: " << (unreadable.empty() ? "none" : unreadable.front()));
  CHECK(unreadable.empty());
  REQUIRE(static_cast<int>(checkpoints.size()) == ranks);
  for (const auto& c : checkpoints) {
    const int rank = c.header.rank;
    INFO("rank " << rank << ", checkpoint " << c.header.sequence << " (" << c.header.ended
                 << ") written " << ended_unix_s - c.header.written_unix_s << " s before the end");
    const auto record = steps_of(steps, rank);
    REQUIRE(record);
    check_checkpoint_counts(c, *record);
    CHECK(c.header.written_unix_s >= ended_unix_s - interval_s - 0.5);
    CHECK(c.header.written_unix_s <= ended_unix_s + 0.5);
    CHECK(c.header.size == ranks);
  }
  return checkpoints;
}

// `mpidle report` of the run merges them, and says so.
void check_report(const std::string& run, int ranks) {
  const auto report = test::run({MPIDLE_BIN, "report", run});
  INFO(report.out << report.err);
  CHECK(report.status == 0);
  CHECK_THAT(report.out, Catch::Contains("checkpoints: this run did not reach MPI_Finalize"));
  CHECK_THAT(report.out,
             Catch::Contains(std::to_string(ranks) + " of " + std::to_string(ranks) + " ranks"));
  const auto merged = model::read_profile(run);
  REQUIRE(merged.checkpoints);
  CHECK(merged.ranks.size() == static_cast<std::size_t>(ranks));
}

// The fleet ingests it as an incomplete job with its ranks and its wait.
void check_fleet(const std::string& parent) {
  const std::string db = parent + "/fleet.db";
  const auto ingest = test::run({MPIDLE_BIN, "fleet", "ingest", parent, "--db", db});
  INFO(ingest.out << ingest.err);
  REQUIRE(ingest.status == 0);
  CHECK_THAT(ingest.err + ingest.out, Catch::Contains("1 added"));
  const auto report = test::run({MPIDLE_BIN, "fleet", "report", "--db", db, "--json"});
  REQUIRE(report.status == 0);
  const auto j = nlohmann::json::parse(report.out);
  REQUIRE(j["by_status"].size() == 1);
  CHECK(j["by_status"][0]["status"] == "incomplete");
  CHECK(j["top_jobs"][0]["status"] == "incomplete");
  CHECK(j["top_jobs"][0]["ranks"] == 2);
  CHECK(j["totals"]["wait_core_hours"].get<double>() > 0);
}

}  // namespace

TEST_CASE("SIGKILL to one rank mid-run: each rank keeps its profile up to its last checkpoint",
          "[mpi]") {
  const std::string parent = scratch_dir("checkpoint_kill_rank");
  const std::string run_dir = parent + "/run", steps = parent + "/steps";
  fs::create_directories(parent);
  std::map<std::string, std::string> env = {{"MPIDLE_OUTPUT", run_dir}, {"MPIDLE_CHECKPOINT", "1"}};
  const auto argv = mpi_command(2, program("fault_dies"), {"linger", "30", steps}, env);
  const auto started = std::chrono::steady_clock::now();
  auto job = std::async(std::launch::async, [&] { return test::run(argv, env, 60); });
  const auto records = wait_for_steps(steps, 2, 3.5);
  REQUIRE(records.size() == 2);
  const double killed = unix_now_s();
  REQUIRE(kill(static_cast<pid_t>(records[1].pid), SIGKILL) == 0);
  const auto outcome = job.get();
  INFO(outcome.out << outcome.err);
  CHECK(outcome.status != 0);  // the launcher says a rank was killed
  CHECK(ended_before_deadline(started));
  // Rank 0 ends when its launcher ends it, after rank 1: within the interval of
  // rank 1's death or later.
  const auto checkpoints = check_checkpoints(run_dir, steps, 2, killed + 1.0, 2.0);
  CHECK_FALSE(fs::exists(run_dir + "/profile.json"));
  check_report(run_dir, 2);
  check_fleet(parent);
}

TEST_CASE("SIGKILL to every rank at once: the job keeps its profile up to its last checkpoints",
          "[mpi]") {
  const std::string parent = scratch_dir("checkpoint_kill_job");
  const std::string run_dir = parent + "/run", steps = parent + "/steps";
  fs::create_directories(parent);
  std::map<std::string, std::string> env = {{"MPIDLE_OUTPUT", run_dir}, {"MPIDLE_CHECKPOINT", "1"}};
  const auto argv = mpi_command(2, program("fault_dies"), {"linger", "30", steps}, env);
  const auto started = std::chrono::steady_clock::now();
  auto job = std::async(std::launch::async, [&] { return test::run(argv, env, 60); });
  const auto records = wait_for_steps(steps, 2, 3.5);
  REQUIRE(records.size() == 2);
  const double killed = unix_now_s();
  for (const auto& r : records) kill(static_cast<pid_t>(r.pid), SIGKILL);
  const auto outcome = job.get();
  INFO(outcome.out << outcome.err);
  CHECK(outcome.status != 0);
  CHECK(ended_before_deadline(started));
  const auto checkpoints = check_checkpoints(run_dir, steps, 2, killed, 1.0);
  for (const auto& c : checkpoints) CHECK(c.header.ended == "checkpoint");
  check_report(run_dir, 2);
  check_fleet(parent);
}

TEST_CASE("A rank killed halfway through writing a checkpoint leaves its previous one readable",
          "[mpi]") {
  const std::string parent = scratch_dir("checkpoint_kill_writing");
  const std::string run_dir = parent + "/run", steps = parent + "/steps";
  fs::create_directories(parent);
  // Rank 1 dies inside its third checkpoint's write (tests/programs/checkpoint_kill.c).
  std::map<std::string, std::string> env = {
      {"MPIDLE_OUTPUT", run_dir},
      {"MPIDLE_CHECKPOINT", "1"},
      {"CHECKPOINT_KILL_AT", "3"},
      {"CHECKPOINT_KILL_RANK", "1"},
      {"LD_PRELOAD", std::string(MPIDLE_LIB) + ":" + CHECKPOINT_KILL_LIB}};
  const auto argv = mpi_command(2, program("fault_dies"), {"linger", "30", steps}, env, false);
  const auto started = std::chrono::steady_clock::now();
  const auto outcome = test::run(argv, env, 60);
  INFO(outcome.out << outcome.err);
  CHECK(outcome.status != 0);
  CHECK(ended_before_deadline(started));
  // Its half-written temporary file is there, and its second checkpoint whole.
  bool half_written = false;
  for (const auto& e : fs::directory_iterator(run_dir + "/checkpoints")) {
    half_written = half_written || e.path().filename().string().rfind("rank-1.partial-", 0) == 0;
  }
  CHECK(half_written);
  std::vector<std::string> unreadable;
  const auto checkpoints = model::read_checkpoints(run_dir, unreadable);
  CHECK(unreadable.empty());
  const auto one = std::find_if(checkpoints.begin(), checkpoints.end(),
                                [](const model::Checkpoint& c) { return c.header.rank == 1; });
  REQUIRE(one != checkpoints.end());
  CHECK(one->header.sequence == 2);
  const auto record = steps_of(steps, 1);
  REQUIRE(record);
  check_checkpoint_counts(*one, *record);
  check_report(run_dir, 2);
}

TEST_CASE(
    "A deadlocked job: mpidle status shows each rank in MPI_Recv while it hangs, and the "
    "report keeps its profile after the kill",
    "[mpi]") {
  const std::string parent = scratch_dir("checkpoint_deadlock");
  const std::string run_dir = parent + "/run", steps = parent + "/steps";
  fs::create_directories(parent);
  std::map<std::string, std::string> env = {{"MPIDLE_OUTPUT", run_dir}, {"MPIDLE_CHECKPOINT", "1"}};
  // Two seconds of steps, then every rank receives from the next: a deadlock.
  const auto argv = mpi_command(2, program("fault_dies"), {"hang", "2", steps}, env);
  const auto started = std::chrono::steady_clock::now();
  auto job = std::async(std::launch::async, [&] { return test::run(argv, env, 60); });
  const auto records = wait_for_steps(steps, 2, 6.0);
  REQUIRE(records.size() == 2);
  const auto status = test::run({MPIDLE_BIN, "status", run_dir});
  const double asked = unix_now_s();
  INFO(status.out << status.err);
  CHECK(status.status == 0);
  // The program's own last step: how long no MPI call of the rank has ended (the
  // receive began right after it).
  for (int rank = 0; rank < 2; ++rank) {
    const auto record = steps_of(steps, rank);
    REQUIRE(record);
    const double last_step = last_step_unix_s(*record);
    REQUIRE(last_step > 0);
    std::smatch m;
    const std::regex line("rank " + std::to_string(rank) +
                          " +in MPI_Recv; no MPI call ended for (\\d+) s");
    REQUIRE(std::regex_search(status.out, m, line));
    const double said = std::stod(m[1]);
    // At least since the first checkpoint after the hang was due (1 s, and a
    // rounding); at most since the last step.
    CHECK(said >= asked - last_step - 1.0 - 1.5);
    CHECK(said <= asked - last_step + 1.0);
  }
  for (const auto& r : records) kill(static_cast<pid_t>(r.pid), SIGKILL);
  const auto outcome = job.get();
  CHECK(ended_before_deadline(started));
  // The last checkpoints came before the hang: they hold every step but the last
  // few, and nothing after the loop.
  for (const auto& c : check_checkpoints(run_dir, steps, 2, asked, 10.0)) {
    const auto record = steps_of(steps, c.header.rank);
    CHECK(static_cast<long>(allreduce_calls(c)) <= 10 + 2 * record->steps);
  }
  check_report(run_dir, 2);
}
