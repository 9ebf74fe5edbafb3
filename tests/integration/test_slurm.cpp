// Under a real Slurm (scripts/slurm.sh: munged, slurmctld and slurmd of the test's
// own, in a scratch directory, on free ports): srun with this MPI's PMI plugin,
// sbatch with the module file and mpiexec inside the allocation, a job array, two
// jobs at once into one log tree, a job cancelled mid-run, and the SPANK plugin
// turning mpidle on for one job or every job. Every run's job metadata is checked
// against what Slurm itself says of the job (scontrol).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "build_paths.hpp"
#include "fleet/records/job_record.hpp"
#include "fleet/records/log_tree.hpp"
#include "model/checkpoint_merge.hpp"
#include "process.hpp"
#include "steps_record.hpp"

using namespace mpidle::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kSlurm = std::string(MPIDLE_SOURCE_DIR) + "/scripts/slurm.sh";

// Why a Slurm cluster cannot start here, or "".
std::string why_no_slurm() {
  const auto c = run({kSlurm, "check"});
  return c.status == 0 ? "" : c.out + c.err;
}

// Debian's Slurm and MPI meet through PMI-2 (MPICH) and PMIx (Open MPI).
std::string srun_mpi() {
  return testing_open_mpi() ? "--mpi=pmix" : "--mpi=pmi2";
}

std::string quoted(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    out += (out.empty() ? "'" : " '");
    for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += "'";
  }
  return out;
}

// `script` (sh) run inside a fresh cluster, which is gone when this returns; every
// job's `scontrol -o show job` line is left in `jobs_file`.
Outcome in_slurm(const std::string& script, const std::string& jobs_file,
                 const std::string& plugstack = "", const std::string& task_prolog = "",
                 int timeout_s = 120) {
  // wait_for JOB...: until Slurm lists none of them (sbatch --wait polls every
  // few seconds).
  const std::string whole =
      "set -e\nwait_for() { for id; do while squeue -h -j \"$id\" 2>/dev/null | grep -q .; do "
      "sleep 0.1; done; done; }\n" +
      script + "\nscontrol -o show job > " + quoted({jobs_file}) + "\n";
  std::vector<std::string> argv = {kSlurm, "run"};
  if (!plugstack.empty()) argv.insert(argv.end(), {"--plugstack", plugstack});
  if (!task_prolog.empty()) argv.insert(argv.end(), {"--task-prolog", task_prolog});
  argv.insert(argv.end(), {"--", "sh", "-c", whole});
  return run(argv, {}, timeout_s);
}

// Slurm's own account of each job (one scontrol line each): its fields by name.
std::vector<std::map<std::string, std::string>> slurm_jobs(const std::string& jobs_file) {
  std::vector<std::map<std::string, std::string>> jobs;
  std::istringstream lines(read_text(jobs_file));
  for (std::string line; std::getline(lines, line);) {
    std::map<std::string, std::string> job;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      const auto eq = word.find('=');
      if (eq != std::string::npos) job[word.substr(0, eq)] = word.substr(eq + 1);
    }
    if (job.count("JobId")) jobs.push_back(job);
  }
  return jobs;
}

json job_of(const fs::path& run) {
  return json::parse(read_text((run / mpidle::fleet::kJobRecordFile).string()))["job"];
}

// The run's job section says what Slurm says of the job.
void check_job(const json& job, const std::map<std::string, std::string>& slurm) {
  INFO(job.dump());
  CHECK(job["scheduler"] == "slurm");
  if (slurm.at("JobState") != "CANCELLED") CHECK(slurm.at("JobState") == "COMPLETED");
  const bool array = slurm.count("ArrayJobId") != 0;
  CHECK(job["job_id"] == slurm.at(array ? "ArrayJobId" : "JobId"));
  if (array) CHECK(job["array_index"] == slurm.at("ArrayTaskId"));
  CHECK(job["job_name"] == slurm.at("JobName"));
  CHECK(job["partition"] == slurm.at("Partition"));
  if (slurm.at("Account") == "(null)") {
    CHECK(job["account"].is_null());
  } else {
    CHECK(job["account"] == slurm.at("Account"));
  }
  CHECK(job["node_list"] == slurm.at("NodeList"));
  const std::string user = slurm.at("UserId");  // name(uid)
  CHECK(job["user"] == user.substr(0, user.find('(')));
}

const std::map<std::string, std::string>& job_with(
    const std::vector<std::map<std::string, std::string>>& jobs, const std::string& field,
    const std::string& value) {
  for (const auto& j : jobs) {
    if (j.count(field) && j.at(field) == value) return j;
  }
  FAIL("Slurm knows no job with " << field << "=" << value);
  throw std::logic_error("unreachable");
}

// A batch script that runs `argv` with srun and this MPI's PMI plugin; with a
// `tree`, libmpidle preloaded and the runs going there (else it leaves mpidle to the
// site: the SPANK plugin or the TaskProlog).
std::string srun_script(const std::string& name, const std::vector<std::string>& argv,
                        const std::string& tree = "", const std::string& ranks = "",
                        const std::string& exports = "") {
  const auto script = scratch_dir(name);
  std::ofstream out(script);
  out << "#!/bin/sh\n";
  if (!tree.empty()) {
    out << "export LD_PRELOAD=" << quoted({build_tree::mpidle_lib})
        << " MPIDLE_LOG_DIR=" << quoted({tree}) << (exports.empty() ? "" : " " + exports) << "\n";
  }
  out << "srun " << ranks << srun_mpi() << " " << quoted(argv) << "\n";
  return script;
}

// The runs of `tree`, one per job Slurm ran (`runs` of them), none left staging: each
// run's job section checked against the job whose `slurm_field` is the run's
// `field`. Returns the runs' values of `field`.
std::set<std::string> runs_match_jobs(const std::string& tree, const std::string& jobs_file,
                                      std::size_t runs, const char* field,
                                      const char* slurm_field) {
  const auto t = log_tree_runs(tree);
  REQUIRE(t.runs.size() == runs);
  CHECK(t.staging == 0);
  const auto jobs = slurm_jobs(jobs_file);
  std::set<std::string> values;
  for (const auto& run : t.runs) {
    const auto job = job_of(run);
    const std::string value = job[field].get<std::string>();
    values.insert(value);
    check_job(job, job_with(jobs, slurm_field, value));
  }
  return values;
}

// The job names of the runs in `tree` that were traced.
std::set<std::string> traced_jobs(const std::string& tree) {
  std::set<std::string> names;
  for (const auto& run : log_tree_runs(tree).runs) {
    if (fs::exists(run / "trace.mpidle")) names.insert(job_of(run)["job_name"].get<std::string>());
  }
  return names;
}

}  // namespace

TEST_CASE("Slurm: srun with the MPI's PMI plugin, the job's metadata from the scheduler",
          "[mpi][slurm]") {
  if (const auto why = why_no_slurm(); !why.empty()) {
    skip_test(why);
  }
  const auto tree = scratch_dir("slurm_srun");
  const auto jobs_file = scratch_dir("slurm_srun.jobs");
  fs::create_directories(tree);
  const auto r = in_slurm("LD_PRELOAD=" + quoted({build_tree::mpidle_lib}) +
                              " MPIDLE_LOG_DIR=" + quoted({tree}) + " srun " + srun_mpi() +
                              " -n 2 -J mpidle-srun " + quoted({example("late_sender"), "--json"}),
                          jobs_file);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  // Two ranks of one MPI job (not two singletons), its wait against its own truth.
  CHECK(truth_of(r.out)["pairs"] == 1);
  CHECK(runs_match_jobs(tree, jobs_file, 1, "job_name", "JobName") ==
        std::set<std::string>{"mpidle-srun"});
  const auto run = log_tree_runs(tree).runs.at(0);
  CHECK(json::parse(read_text((run / "profile.json").string()))["ranks"].size() == 2);
  CHECK(job_of(run)["step"] == "0");
}

TEST_CASE("Slurm: sbatch, the module file loaded and mpiexec inside the allocation",
          "[mpi][slurm]") {
  if (const auto why = why_no_slurm(); !why.empty()) {
    skip_test(why);
  }
  const std::string lmod_init = "/usr/share/lmod/lmod/init/sh";
  if (!fs::exists(lmod_init)) {
    skip_test("Lmod is not installed (apt-get install lmod)");
  }
  // The build's module file, its install prefix pointed at this build tree.
  const fs::path build = fs::path(build_tree::mpidle_lib).parent_path().parent_path();
  const auto modules = fs::path(scratch_dir("slurm_modules"));
  fs::create_directories(modules / "mpidle");
  for (const auto& file : fs::directory_iterator(build / "site" / "lmod" / "mpidle")) {
    std::string text = read_text(file.path().string());
    const std::string prefix = "/usr/local";  // where make install puts it
    for (std::size_t at; (at = text.find(prefix + "/")) != std::string::npos;) {
      text.replace(at, prefix.size(), build.string());
    }
    std::ofstream(modules / "mpidle" / file.path().filename()) << text;
  }
  const auto tree = scratch_dir("slurm_sbatch");
  fs::create_directories(tree);
  std::map<std::string, std::string> env{{"MPIDLE_LOG_DIR", tree}};
  auto launch = mpi_command(2, example("late_sender"), {}, env, false);
  const auto script = scratch_dir("slurm_sbatch.sh");
  std::ofstream(script) << "#!/bin/sh\n. " << lmod_init << "\nmodule use " << modules.string()
                        << "\nmodule load mpidle\nexport MPIDLE_LOG_DIR=" << quoted({tree}) << "\n"
                        << quoted(launch) << "\n";
  const auto jobs_file = scratch_dir("slurm_sbatch.jobs");
  const auto r =
      in_slurm("wait_for $(sbatch --parsable -n 2 -J mpidle-batch -o " +
                   quoted({tree + "/../slurm_sbatch.out"}) + " " + quoted({script}) + ")",
               jobs_file);
  INFO(r.out << r.err << read_text(tree + "/../slurm_sbatch.out"));
  REQUIRE(r.status == 0);
  CHECK(runs_match_jobs(tree, jobs_file, 1, "job_name", "JobName") ==
        std::set<std::string>{"mpidle-batch"});
}

TEST_CASE("Slurm: a job array, each task's index in its run's job", "[mpi][slurm]") {
  if (const auto why = why_no_slurm(); !why.empty()) {
    skip_test(why);
  }
  const auto tree = scratch_dir("slurm_array");
  fs::create_directories(tree);
  const auto script = srun_script("slurm_array.sh", {program("fault_dies"), "whole"}, tree);
  const auto jobs_file = scratch_dir("slurm_array.jobs");
  const auto r =
      in_slurm("wait_for $(sbatch --parsable --array=0-1 -n 2 -J mpidle-array -o /dev/null " +
                   quoted({script}) + ")",
               jobs_file);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto indices = runs_match_jobs(tree, jobs_file, 2, "array_index", "ArrayTaskId");
  CHECK(indices == std::set<std::string>{"0", "1"});
}

TEST_CASE("Slurm: two jobs at once into one log tree", "[mpi][slurm]") {
  if (const auto why = why_no_slurm(); !why.empty()) {
    skip_test(why);
  }
  const auto tree = scratch_dir("slurm_two");
  fs::create_directories(tree);
  // One rank each: both fit the node's two CPUs and run at once.
  const auto script = srun_script("slurm_two.sh", {program("fault_dies"), "linger", "1"}, tree);
  const auto jobs_file = scratch_dir("slurm_two.jobs");
  const auto r =
      in_slurm("a=$(sbatch --parsable -n 1 -J first -A physics -o /dev/null " + quoted({script}) +
                   ")\nb=$(sbatch --parsable -n 1 -J second -A chemistry -o /dev/null " +
                   quoted({script}) + ")\nwait_for $a $b",
               jobs_file);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto names = runs_match_jobs(tree, jobs_file, 2, "job_name", "JobName");
  const auto jobs = slurm_jobs(jobs_file);
  REQUIRE(jobs.size() == 2);
  CHECK(names == std::set<std::string>{"first", "second"});
  // At once: each job started before the other ended.
  CHECK(jobs[0].at("StartTime") <= jobs[1].at("EndTime"));
  CHECK(jobs[1].at("StartTime") <= jobs[0].at("EndTime"));

  // The fleet of these real jobs: its users, accounts and jobs are Slurm's.
  const auto db = scratch_dir("slurm_two.sqlite");
  const auto ingest = run({build_tree::mpidle_bin, "fleet", "ingest", tree, "--db", db});
  INFO(ingest.out << ingest.err);
  REQUIRE(ingest.status == 0);
  CHECK_THAT(ingest.out, Catch::Contains("2 added"));
  const auto report = run({build_tree::mpidle_bin, "fleet", "report", "--db", db, "--json"});
  REQUIRE(report.status == 0);
  const auto fleet = json::parse(report.out);
  std::map<std::string, long long> by_user, by_account;
  for (const auto& u : fleet["by_user"]) by_user[u["user"].get<std::string>()] = u["jobs"];
  for (const auto& a : fleet["by_account"]) {
    by_account[a["account"].get<std::string>()] = a["jobs"];
  }
  std::map<std::string, long long> slurm_users, slurm_accounts;
  std::set<std::string> slurm_ids, fleet_ids;
  for (const auto& j : jobs) {
    const std::string user = j.at("UserId");
    ++slurm_users[user.substr(0, user.find('('))];
    ++slurm_accounts[j.at("Account")];
    slurm_ids.insert(j.at("JobId"));
  }
  for (const auto& j : fleet["top_jobs"]) fleet_ids.insert(j["job_id"].get<std::string>());
  CHECK(by_user == slurm_users);
  CHECK(by_account == slurm_accounts);
  CHECK(slurm_accounts == std::map<std::string, long long>{{"chemistry", 1}, {"physics", 1}});
  CHECK(fleet_ids == slurm_ids);
  // Two jobs of a second each read in core-seconds, not "0.0 core-hours".
  const auto html = scratch_dir("slurm_two.html");
  REQUIRE(run({build_tree::mpidle_bin, "fleet", "report", "--db", db, "--html", html}).status == 0);
  const auto page = read_text(html);
  CHECK_THAT(page, Catch::Contains(" core-seconds, "));
  CHECK_THAT(page, !Catch::Contains("0.0 core-hours"));
}

TEST_CASE("Slurm: a job cancelled mid-run leaves its partial profiles, no staging directory",
          "[mpi][slurm]") {
  if (const auto why = why_no_slurm(); !why.empty()) {
    skip_test(why);
  }
  const auto tree = scratch_dir("slurm_cancel");
  fs::create_directories(tree);
  // The ranks count their steps in shared mappings, steps.0 and steps.1.
  const auto steps_dir = scratch_dir("slurm_cancel_steps");
  fs::create_directories(steps_dir);
  const auto steps = steps_dir + "/steps";
  const auto script =
      srun_script("slurm_cancel.sh", {program("fault_dies"), "linger", "60", steps}, tree);
  const auto jobs_file = scratch_dir("slurm_cancel.jobs");
  // Cancelled once its ranks have taken steps inside MPI.
  const auto r =
      in_slurm("id=$(sbatch --parsable -n 2 -J cancelled -o /dev/null " + quoted({script}) + ")\n" +
                   "i=0; until [ -s " + quoted({steps + ".0"}) +
                   " ] || [ $i -ge 200 ]; do i=$((i+1)); sleep 0.1; done\n"
                   "sleep 1; scancel $id\n"
                   "wait_for $id",
               jobs_file);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto jobs = slurm_jobs(jobs_file);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].at("JobState") == "CANCELLED");
  const auto t = log_tree_runs(tree);
  CHECK(t.staging == 0);
  REQUIRE(t.runs.size() == 1);
  int partial = 0;
  for (int rank = 0; rank < 2; ++rank) {
    const auto dir = t.runs[0] / "partial" / ("rank-" + std::to_string(rank));
    if (!fs::exists(dir / "profile.json")) continue;
    ++partial;
    const auto record = json::parse(read_text((dir / mpidle::fleet::kJobRecordFile).string()));
    CHECK(record["status"] == "partial");
    check_job(record["job"], jobs[0]);
  }
  CHECK(partial >= 1);
}

// `dies MODE 600 STEPS` as a 2-rank batch job (`options` to sbatch) with a
// checkpoint every second into `tree`; `after` (sh, the job's id in $id) runs once
// both ranks loop, then the job is waited for. Slurm's account of it is left in
// the jobs file.
struct KilledJob {
  std::string tree, steps, jobs_file;
};
KilledJob run_killed_job(const std::string& name, const std::string& options,
                         const std::string& mode, const std::string& after, int timeout_s) {
  KilledJob job{scratch_dir(name), scratch_dir(name + "_steps") + "/steps",
                scratch_dir(name + ".jobs")};
  fs::create_directories(job.tree);
  fs::create_directories(fs::path(job.steps).parent_path());
  const auto script = srun_script(name + ".sh", {program("fault_dies"), mode, "600", job.steps},
                                  job.tree, "", "MPIDLE_CHECKPOINT=1");
  const auto r = in_slurm(
      "id=$(sbatch --parsable -n 2 -J " + name + " -o /dev/null " + options + " " +
          quoted({script}) + ")\n" + "i=0; until [ -s " + quoted({job.steps + ".1"}) +
          " ] || [ $i -ge 300 ]; do i=$((i+1)); sleep 0.1; done\n" + after + "\nwait_for $id",
      job.jobs_file, "", "", timeout_s);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  return job;
}

// The killed job's run, with every rank's checkpoint holding the rank's calls as
// of its time, the latest within an interval of the rank's last step; `mpidle
// report` merges them, and the fleet ingests the job as incomplete, Slurm's, with
// its wait. A run whose ranks were all killed stays in its staging directory; one
// where a rank was sent SIGTERM too (srun passes it on when its step is ended)
// was published by that rank's partial profile, the later checkpoints with it.
void check_killed_run(const KilledJob& job, const std::map<std::string, std::string>& slurm) {
  const auto t = log_tree_runs(job.tree);
  REQUIRE(t.runs.size() + t.staging == 1);
  fs::path staging;
  for (const auto& e : fs::recursive_directory_iterator(job.tree)) {
    if (e.path().filename().string().front() == '.' && fs::is_directory(e.path())) {
      staging = e.path();
    }
  }
  const fs::path run_dir = t.runs.empty() ? staging : t.runs.front();
  std::string key = run_dir.filename().string();
  if (t.runs.empty()) {
    key = key.substr(1, key.size() - 1 - std::string(mpidle::fleet::kStagingSuffix).size());
  }
  REQUIRE(!run_dir.empty());
  std::vector<std::string> unreadable;
  const auto checkpoints = mpidle::model::read_checkpoints(run_dir, unreadable);
  CHECK(unreadable.empty());
  REQUIRE(checkpoints.size() == 2);
  for (const auto& c : checkpoints) {
    const auto record = steps_of(job.steps, c.header.rank);
    REQUIRE(record);
    check_checkpoint_counts(c, *record);
    INFO("written " << last_step_unix_s(*record) - c.header.written_unix_s
                    << " s before the rank's last step");
    CHECK(c.header.written_unix_s >= last_step_unix_s(*record) - 1.5);
  }
  const auto report = run({build_tree::mpidle_bin, "report", run_dir.string()});
  INFO(report.out << report.err);
  CHECK(report.status == 0);
  CHECK_THAT(report.out, Catch::Contains("2 of 2 ranks"));
  const std::string db = job.tree + "/../" + fs::path(job.tree).filename().string() + ".db";
  fs::remove(db);
  const auto ingest = run({build_tree::mpidle_bin, "fleet", "ingest", job.tree, "--db", db});
  INFO(ingest.out << ingest.err);
  CHECK(ingest.status == 0);
  const auto fleet = run({build_tree::mpidle_bin, "fleet", "report", "--db", db, "--json"});
  REQUIRE(fleet.status == 0);
  const auto j = json::parse(fleet.out);
  REQUIRE(j["top_jobs"].size() == 1);
  const auto& row = j["top_jobs"][0];
  CHECK(row["status"] == "incomplete");
  CHECK(row["ranks"] == 2);
  CHECK(row["job_id"] == slurm.at("JobId"));
  // Keyed by the place it has, or was to be published at.
  const fs::path ingested = row["run"].get<std::string>();
  CHECK(ingested.filename().string() == key);
  CHECK(j["totals"]["wait_core_hours"].get<double>() > 0);
}

TEST_CASE(
    "Slurm: scancel --signal=KILL mid-run: the job keeps its profile up to its last "
    "checkpoints, and the fleet counts it",
    "[mpi][slurm]") {
  if (const auto why = why_no_slurm(); !why.empty()) skip_test(why);
  // The program ignores SIGTERM, which srun passes on as its step ends: the ranks
  // end by SIGKILL alone.
  const auto job =
      run_killed_job("slurm_kill", "", "deaf", "sleep 3; scancel --signal=KILL $id", 120);
  const auto jobs = slurm_jobs(job.jobs_file);
  REQUIRE(jobs.size() == 1);
  INFO("JobState " << jobs[0].at("JobState"));
  CHECK(jobs[0].at("JobState") != "COMPLETED");
  check_killed_run(job, jobs[0]);
}

TEST_CASE(
    "Slurm: a job past its time limit, ended by SIGKILL once KillWait expired, keeps its "
    "profile up to its last checkpoints",
    "[mpi][slurm]") {
  if (const auto why = why_no_slurm(); !why.empty()) skip_test(why);
  // The program ignores SIGTERM: Slurm's KillWait (5 s here) expires and SIGKILL
  // ends it. A one-minute limit, enforced within slurmctld's 30 s sweeps.
  const auto job = run_killed_job("slurm_time_limit", "-t 1", "deaf", "", 170);
  const auto jobs = slurm_jobs(job.jobs_file);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].at("JobState") == "TIMEOUT");
  check_killed_run(job, jobs[0]);
}

TEST_CASE(
    "Slurm: the SPANK plugin turns mpidle on for one job and for every job, never for "
    "slurmstepd",
    "[mpi][slurm]") {
  if (const auto why = why_no_slurm(); !why.empty()) {
    skip_test(why);
  }
  if (std::string(build_tree::mpidle_spank_lib).empty() ||
      std::string(build_tree::mpidle_preload_lib).empty()) {
    skip_test("mpidle-spank.so or the preload shim is not built (libslurm-dev, x86-64)");
  }
  const auto plugstack = [](const std::string& name, const std::string& tree,
                            const std::string& extra) {
    const auto file = scratch_dir(name);
    std::ofstream(file) << "required " << build_tree::mpidle_spank_lib
                        << " shim=" << build_tree::mpidle_preload_lib << " log_dir=" << tree
                        << extra << "\n";
    return file;
  };
  const std::string job = " -n 2 " + srun_mpi() + " " + quoted({example("late_sender")});
  // What a task and its parent (slurmstepd) have in LD_PRELOAD.
  const std::string environments =
      "srun --mpidle -n 1 sh -c 'echo \"task=$LD_PRELOAD\"; echo \"parent=$(cat /proc/$PPID/comm) "
      "$(tr \"\\\\0\" \"\\\\n\" < /proc/$PPID/environ | grep -c LD_PRELOAD)\"'";
  {
    INFO("one job: srun --mpidle, sbatch --mpidle=trace");
    const auto tree = scratch_dir("slurm_spank_option");
    fs::create_directories(tree);
    const auto script = srun_script("slurm_spank_option.sh", {example("late_sender")}, "", "-n 2 ");
    const auto jobs_file = scratch_dir("slurm_spank_option.jobs");
    const auto r =
        in_slurm("srun -J without" + job + "\nsrun --mpidle -J with" + job + "\n" + environments +
                     "\nwait_for $(sbatch --parsable --mpidle=trace -n 2 -J batch "
                     "-o /dev/null " +
                     quoted({script}) + ")",
                 jobs_file, plugstack("slurm_spank_option.conf", tree, ""));
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains(std::string("task=") + build_tree::mpidle_preload_lib));
    CHECK_THAT(r.out, Catch::Contains("parent=slurmstepd 0"));
    // The jobs that asked, alone; sbatch's traced.
    const auto names = runs_match_jobs(tree, jobs_file, 2, "job_name", "JobName");
    CHECK(traced_jobs(tree) == std::set<std::string>{"batch"});
    CHECK(names == std::set<std::string>{"with", "batch"});
  }
  {
    INFO("every job: the site's default; a batch script that never mentions mpidle");
    const auto tree = scratch_dir("slurm_spank_default");
    fs::create_directories(tree);
    const auto script =
        srun_script("slurm_spank_default.sh", {example("late_sender")}, "", "-n 2 ");
    const auto jobs_file = scratch_dir("slurm_spank_default.jobs");
    const auto r =
        in_slurm("wait_for $(sbatch --parsable -n 2 -J batch -o /dev/null " + quoted({script}) +
                     ")\nsrun --mpidle=off -J off" + job + "\nsrun --mpidle=trace -J traced" + job,
                 jobs_file, plugstack("slurm_spank_default.conf", tree, " default=profile"));
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    // The batch job's step and the traced one, not "off".
    const auto names = runs_match_jobs(tree, jobs_file, 2, "job_name", "JobName");
    CHECK(traced_jobs(tree) == std::set<std::string>{"traced"});
    CHECK(names == std::set<std::string>{"batch", "traced"});
  }
  {
    INFO("a plugstack.conf without shim=: the shim beside the build tree's plugin");
    const auto tree = scratch_dir("slurm_spank_own_shim");
    fs::create_directories(tree);
    const auto conf = scratch_dir("slurm_spank_own_shim.conf");
    std::ofstream(conf) << "required " << build_tree::mpidle_spank_lib << " log_dir=" << tree
                        << "\n";
    const auto jobs_file = scratch_dir("slurm_spank_own_shim.jobs");
    const auto r = in_slurm("srun --mpidle -J with" + job + "\n" + environments, jobs_file, conf);
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains(std::string("task=") + build_tree::mpidle_preload_lib));
    CHECK(count_lines_with(r.err, "cannot be preloaded") == 0);
    CHECK(runs_match_jobs(tree, jobs_file, 1, "job_name", "JobName") ==
          std::set<std::string>{"with"});
  }
  {
    INFO("a shim that is not there: one line, every job unprofiled, --mpidle refused");
    const auto tree = scratch_dir("slurm_spank_no_shim");
    fs::create_directories(tree);
    const std::string missing = "/nonexistent/mpidle/libmpidle-preload.so";
    const auto conf = scratch_dir("slurm_spank_no_shim.conf");
    std::ofstream(conf) << "required " << build_tree::mpidle_spank_lib << " shim=" << missing
                        << " log_dir=" << tree << " default=profile\n";
    const auto jobs_file = scratch_dir("slurm_spank_no_shim.jobs");
    const auto r = in_slurm(
        "srun -J plain" + job +
            "\nif srun --mpidle -J asked -n 1 true; then echo refused=no; else echo refused=yes; "
            "fi\necho \"slurmd=$(grep -c 'mpidle: the preload shim' "
            "\"$MPIDLE_SLURM_DIR/slurmd.log\")\"",
        jobs_file, conf);
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    // The job that did not ask ran, unprofiled, after one line; the one that asked
    // was refused, with the reason; no loader error from any task.
    CHECK(count_lines_with(r.err, "mpidle: the preload shim " + missing +
                                      " cannot be read (No such file or directory): mpidle is "
                                      "off for this job") == 1);
    CHECK(count_lines_with(r.err, "mpidle: --mpidle refused: the preload shim " + missing) == 1);
    CHECK_THAT(r.out, Catch::Contains("refused=yes"));
    CHECK(count_lines_with(r.err, "cannot be preloaded") == 0);
    CHECK(count_lines_with(r.out, "slurmd=0") == 0);  // and in slurmd's log
    CHECK_THAT(r.out, Catch::Contains("slurmd="));
    CHECK(log_tree_runs(tree).runs.empty());
  }
}

TEST_CASE("Slurm: the TaskProlog turns mpidle on for every job, and a job can opt out",
          "[mpi][slurm]") {
  if (const auto why = why_no_slurm(); !why.empty()) {
    skip_test(why);
  }
  if (std::string(build_tree::mpidle_preload_lib).empty()) {
    skip_test("the preload shim is not built (x86-64 only)");
  }
  const auto tree = scratch_dir("slurm_taskprolog");
  fs::create_directories(tree);
  // The build's TaskProlog, its shim and log tree those of this build and test.
  const fs::path build = fs::path(build_tree::mpidle_lib).parent_path().parent_path();
  std::string text = read_text((build / "site" / "mpidle-taskprolog.sh").string());
  REQUIRE(!text.empty());
  const auto set = [&](const std::string& line, const std::string& value) {
    const auto at = text.find(line);
    REQUIRE(at != std::string::npos);
    text.replace(at, text.find('\n', at) - at, value);
  };
  set("shim=", "shim=" + quoted({build_tree::mpidle_preload_lib}));
  set("log_dir=", "log_dir=" + quoted({tree}));
  const auto prolog = scratch_dir("slurm_taskprolog.sh");
  std::ofstream(prolog) << text;
  fs::permissions(prolog, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  const auto script = srun_script("slurm_taskprolog_job.sh", {example("late_sender")}, "", "-n 2 ");
  const auto jobs_file = scratch_dir("slurm_taskprolog.jobs");
  const auto r = in_slurm("wait_for $(sbatch --parsable -n 2 -J every -o /dev/null " +
                              quoted({script}) + ")\n" +
                              "wait_for $(sbatch --parsable -n 2 -J optout "
                              "--export=ALL,MPIDLE_ENABLE=0 -o /dev/null " +
                              quoted({script}) + ")",
                          jobs_file, "", prolog);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  // The job that did not opt out, alone.
  CHECK(runs_match_jobs(tree, jobs_file, 1, "job_name", "JobName") ==
        std::set<std::string>{"every"});
}
