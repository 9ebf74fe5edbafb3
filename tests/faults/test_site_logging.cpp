// Always on at a centre: runs into a site-wide log tree (MPIDLE_LOG_DIR), with job
// metadata and a site configuration file. None of it may cost the job anything but
// its log: the application's exit status and stdout are those of a bare run.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>

#include "fault_checks.hpp"
#include "fleet/records/job_record.hpp"
#include "fleet/records/log_tree.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

namespace fs = std::filesystem;

nlohmann::json read_json(const fs::path& file) {
  return nlohmann::json::parse(read_text(file.string()));
}

// Why commands cannot run here as other users, or "". Users and groups are taken by
// number: nothing is added to the system's databases.
std::string why_no_other_users() {
  if (geteuid() != 0) return "needs root to run jobs as other users (setpriv)";
  if (!fs::exists("/usr/bin/setpriv")) return "setpriv (util-linux) is not installed";
  return {};
}

// `argv` run as user `uid` with the supplementary groups `groups`.
std::vector<std::string> as_user(const std::string& uid, const std::string& groups,
                                 std::vector<std::string> argv) {
  argv.insert(argv.begin(),
              {"/usr/bin/setpriv", "--reuid=" + uid, "--regid=" + uid, "--groups=" + groups, "--"});
  return argv;
}

// A site's tree made by `mpidle logdir init` for writers and admins, or "" with
// `why` (no POSIX ACLs on the scratch filesystem).
fs::path site_tree(const std::string& name, const std::string& writers, const std::string& admins,
                   std::string& why) {
  const fs::path tree = scratch_dir(name);
  const auto init = run({MPIDLE_BIN, "logdir", "init", tree.string(), "--writers", writers,
                         "--admin-group", admins, "--days", "2"});
  if (init.status != 0 && init.err.find("no POSIX ACLs") != std::string::npos) {
    why = "the scratch filesystem has no POSIX ACLs";
    return {};
  }
  REQUIRE(init.status == 0);
  return tree;
}

// A job of 2 ranks run by user `uid` into `tree`; its mpiexec's result.
Outcome job_as(const std::string& uid, const std::string& groups, const fs::path& tree,
               const std::vector<std::string>& args) {
  std::map<std::string, std::string> env = {
      {"MPIDLE_LOG_DIR", tree.string()}, {"HOME", "/tmp"}, {"SLURM_JOB_ID", "1"}};
  auto job = mpi_command(2, program("fault_dies"), args, env);
  // Open MPI's --allow-run-as-root is for root only; as a user it is not needed.
  job.erase(std::remove(job.begin(), job.end(), "--allow-run-as-root"), job.end());
  return run(as_user(uid, groups, job), env);
}

}  // namespace

TEST_CASE(
    "log tree: a run appears whole under LOG_DIR/YYYY/MM/DD with its job, nothing in the "
    "working directory",
    "[mpi]") {
  for (const bool trace : {false, true}) {
    INFO((trace ? "trace mode" : "profile mode"));
    const fs::path tree = scratch_dir(std::string("log_tree") + (trace ? "_trace" : ""));
    const fs::path cwd = scratch_dir(std::string("log_tree_cwd") + (trace ? "_trace" : ""));
    fs::create_directories(tree);
    fs::create_directories(cwd);
    std::map<std::string, std::string> env = {
        {"MPIDLE_LOG_DIR", tree.string()}, {"MPIDLE_METADATA", "case=water,mesh=fine"},
        {"SLURM_JOB_ID", "4242"},          {"SLURM_STEP_ID", "0"},
        {"SLURM_JOB_ACCOUNT", "chem"},     {"SLURM_JOB_PARTITION", "batch"},
        {"SLURM_JOB_USER", "alice"}};
    if (trace) env["MPIDLE_TRACE"] = "1";
    const fs::path here = fs::current_path();
    fs::current_path(cwd);
    const auto p = both(2, program("fault_dies"), {"exit7"}, env);
    fs::current_path(here);
    check_same_for_the_application(p);
    check_only_mpidle_lines(p.bare.err, p.profiled.err);
    CHECK(fs::is_empty(cwd));

    const auto contents = log_tree_runs(tree);
    CHECK(contents.staging == 0);
    REQUIRE(contents.runs.size() == 1);
    const fs::path run = contents.runs[0];
    INFO("run " << run);
    CHECK_THAT(run.filename().string(), Catch::Matches("alice_fault-dies_4242_[0-9]{6}"));
    // Today's day directory (the run started in it, unless it began just before midnight).
    const auto day = run.parent_path();
    CHECK(day.parent_path().parent_path().parent_path() == tree);
    CHECK(day.filename().string().size() == 2);

    const auto profile = read_json(run / "profile.json");
    CHECK(profile["run"]["ended"] == "MPI_Finalize");
    const auto& job = profile["job"];
    CHECK(job["scheduler"] == "slurm");
    CHECK(job["job_id"] == "4242");
    CHECK(job["step"] == "0");
    CHECK(job["user"] == "alice");
    CHECK(job["account"] == "chem");
    CHECK(job["partition"] == "batch");
    CHECK(job["nodes"] == 1);
    CHECK(job["ranks"] == 2);
    CHECK(job["ranks_per_node"]["max"] == 2);
    CHECK(job["metadata"]["case"] == "water");
    CHECK(job["metadata"]["mesh"] == "fine");
    CHECK_THAT(job["executable_id"].get<std::string>(), Catch::StartsWith("build-id:"));
    CHECK(job["executable"] == fs::canonical(program("fault_dies")).string());

    const auto record = read_json(run / fleet::kJobRecordFile);
    CHECK(record["schema"] == fleet::kJobRecordSchema);
    CHECK(record["status"] == "whole");
    CHECK(record["application"] == "fault_dies");
    CHECK(record["ranks"] == 2);
    CHECK(record["job"]["job_id"] == "4242");
    bool allreduce = false;
    for (const auto& f : record["functions"]) {
      if (f["name"] == "MPI_Allreduce") allreduce = f["calls"] == 20;
    }
    CHECK(allreduce);
    if (trace) CHECK(fs::exists(run / "analysis.json"));
  }
}

TEST_CASE(
    "log tree: ranks that exit without MPI_Finalize publish their partial profiles into "
    "one run",
    "[mpi]") {
  const fs::path tree = scratch_dir("log_tree_exit");
  fs::create_directories(tree);
  const auto p = both(2, program("fault_dies"), {"exit"}, {{"MPIDLE_LOG_DIR", tree.string()}});
  check_same_for_the_application_ending_apart(p);
  check_only_mpidle_lines(p.bare.err, p.profiled.err);
  const auto contents = log_tree_runs(tree);
  REQUIRE(contents.runs.size() == 1);
  CHECK_FALSE(fs::exists(contents.runs[0] / "profile.json"));
  // As in the working directory: the launcher may end one rank before it wrote.
  int written = 0;
  for (int rank = 0; rank < 2; ++rank) {
    const auto dir = contents.runs[0] / "partial" / ("rank-" + std::to_string(rank));
    if (!fs::exists(dir / "profile.json")) continue;
    ++written;
    CHECK(read_json(dir / "profile.json")["run"]["ended"] == "exit");
    CHECK(read_json(dir / fleet::kJobRecordFile)["status"] == "partial");
  }
  CHECK(written >= 1);
  CHECK(contents.staging == (written == 2 ? 0u : contents.staging));
}

TEST_CASE("log tree: an unwritable log directory costs one line and no output", "[mpi]") {
  const fs::path file = scratch_dir("log_tree_file");
  std::ofstream(file) << "a file, not a directory\n";
  const fs::path cwd = scratch_dir("log_tree_unwritable_cwd");
  fs::create_directories(cwd);
  const fs::path here = fs::current_path();
  fs::current_path(cwd);
  const auto p = both(2, program("fault_dies"), {"exit7"}, {{"MPIDLE_LOG_DIR", file.string()}});
  fs::current_path(here);
  check_same_for_the_application(p);
  check_only_mpidle_lines(p.bare.err, p.profiled.err);
  CHECK(count_lines_with(p.profiled.err, "MPIDLE_LOG_DIR") == 1);
  CHECK(count_lines_with(p.profiled.err, "mpidle") == 1);
  CHECK(fs::is_empty(cwd));
}

TEST_CASE("site configuration: the file's settings apply, garbage in it costs one line", "[mpi]") {
  const fs::path tree = scratch_dir("log_tree_config");
  fs::create_directories(tree);
  const fs::path config = scratch_dir("log_tree_config_file");
  std::ofstream(config) << "# a centre's settings\nLOG_DIR=" << tree.string()
                        << "\nMETADATA=from=file\n\x01\x02 garbage \x7f\nTRACE_MEM=lots\n";
  const auto p = both(2, program("fault_dies"), {"exit7"}, {{"MPIDLE_CONFIG", config.string()}});
  check_same_for_the_application(p);
  check_only_mpidle_lines(p.bare.err, p.profiled.err);
  CHECK(count_lines_with(p.profiled.err, config.string()) == 2);  // the lines, the value
  const auto contents = log_tree_runs(tree);
  REQUIRE(contents.runs.size() == 1);
  CHECK(read_json(contents.runs[0] / "profile.json")["job"]["metadata"]["from"] == "file");
}

TEST_CASE(
    "log tree: users cannot read or replace each other's runs, the admin group reads all, "
    "nothing is world-writable",
    "[mpi]") {
  if (const auto why = why_no_other_users(); !why.empty()) {
    skip_test(why);
  }
  const std::string writers = "47000", admins = "47100";
  std::string why;
  const fs::path tree = site_tree("log_tree_site", writers, admins, why);
  if (tree.empty()) {
    skip_test(why);
  }
  const auto as = as_user;
  const auto a = job_as("47001", writers, tree, {"exit7"});
  INFO("user A: " << a.err);
  const auto contents = log_tree_runs(tree);
  if (a.status != 7 || contents.runs.size() != 1) {
    // The user could not run MPI at all (the build tree is not readable by others).
    REQUIRE(run(as("47001", writers, {"/usr/bin/test", "-x", program("fault_dies")})).status != 0);
    skip_test("another user cannot run the test programs from this build tree");
  }
  const fs::path run_a = contents.runs[0];
  const std::string profile_a = (run_a / "profile.json").string();
  // User B, also a writer: cannot read A's profile, list the day, rename or remove A's run.
  CHECK(run(as("47002", writers, {"/bin/cat", profile_a})).status != 0);
  CHECK(run(as("47002", writers, {"/bin/ls", run_a.parent_path().string()})).status != 0);
  CHECK(run(as("47002", writers, {"/bin/mv", run_a.string(), run_a.string() + "-b"})).status != 0);
  CHECK(run(as("47002", writers, {"/bin/rm", "-rf", run_a.string()})).status != 0);
  CHECK(fs::exists(profile_a));
  // B can still make runs of its own in the same day.
  CHECK(
      run(as("47002", writers, {"/bin/mkdir", (run_a.parent_path() / "b_run").string()})).status ==
      0);
  // The admin group reads A's run; a user in neither group reaches nothing.
  const auto admin = run(as("47003", admins, {"/bin/cat", profile_a}));
  CHECK(admin.status == 0);
  CHECK(admin.out == read_text(profile_a));
  CHECK(run(as("47004", "47004", {"/bin/cat", profile_a})).status != 0);
  CHECK(
      run(as("47004", "47004", {"/bin/mkdir", (run_a.parent_path() / "c_run").string()})).status !=
      0);
  // Nothing in the tree is world-writable.
  for (auto it = fs::recursive_directory_iterator(tree); it != fs::recursive_directory_iterator();
       ++it) {
    struct stat st {};
    REQUIRE(::lstat(it->path().c_str(), &st) == 0);
    INFO(it->path());
    CHECK((st.st_mode & S_IWOTH) == 0);
    if (it->path().string().rfind(run_a.string(), 0) == 0) {
      CHECK(st.st_uid == 47001u);
      CHECK((st.st_mode & S_IRWXO) == 0);
    }
  }
}

TEST_CASE("log tree: 100 runs ending at once into one tree, none lost, none replaced", "[mpi]") {
  const fs::path tree = scratch_dir("log_tree_hundred");
  fs::create_directories(tree);
  constexpr int kRuns = 100;
  // One user, one job, one second: every run wants the same name.
  std::map<std::string, std::string> env = {
      {"MPIDLE_LOG_DIR", tree.string()}, {"SLURM_JOB_ID", "77"}, {"SLURM_JOB_USER", "alice"}};
  std::vector<std::future<Outcome>> runs;
  const std::string sessions = scratch_dir("log_tree_hundred_sessions");
  for (int i = 0; i < kRuns; ++i) {
    // Open MPI's launchers race to create their shared session directory under /tmp
    // ("mkdir: File exists", orte_init fails, about 1 in 8 of these tests): each run
    // gets a directory of its own. MPICH ignores the setting.
    const fs::path session = fs::path(sessions) / std::to_string(i);
    fs::create_directories(session);
    runs.push_back(std::async(std::launch::async, [&env, session] {
      auto local = env;
      local["OMPI_MCA_orte_tmpdir_base"] = session.string();
      return run_mpi(1, program("fault_dies"), {"exit7"}, local);
    }));
  }
  int exited_7 = 0;
  std::string first_other;
  for (auto& r : runs) {
    const auto o = r.get();
    exited_7 += o.status == 7;
    if (o.status != 7 && first_other.empty())
      first_other = "status " + std::to_string(o.status) + ", stderr:\n" + o.err;
  }
  INFO(first_other);
  CHECK(exited_7 == kRuns);
  const auto contents = log_tree_runs(tree);
  CHECK(contents.staging == 0);
  CHECK(contents.runs.size() == static_cast<std::size_t>(kRuns));
  std::size_t whole = 0;
  for (const auto& run : contents.runs) {
    const auto profile = read_json(run / "profile.json");
    whole += profile["run"]["ended"] == "MPI_Finalize" && profile["ranks"].size() == 1 &&
             fs::exists(run / fleet::kJobRecordFile);
  }
  CHECK(whole == static_cast<std::size_t>(kRuns));
}

TEST_CASE("log tree: a full disk costs the job nothing but its log", "[mpi]") {
  if (geteuid() != 0) {
    skip_test("needs root to mount a small filesystem");
  }
  const fs::path tree = scratch_dir("log_tree_full");
  fs::create_directories(tree);
  // 16 KiB: room for the directories, not for a profile.
  if (run({"/bin/mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", tree.string()}).status != 0) {
    skip_test("cannot mount a tmpfs here");
  }
  struct Unmount {
    std::string path;
    ~Unmount() { run({"/bin/umount", path}); }
  } unmount{tree.string()};
  // Most of the room taken already, as on a full disk.
  std::ofstream(tree / "filler") << std::string(12 * 1024, 'x');
  const auto p = both(2, program("fault_dies"), {"exit7"}, {{"MPIDLE_LOG_DIR", tree.string()}});
  check_same_for_the_application(p);
  check_only_mpidle_lines(p.bare.err, p.profiled.err);
  CHECK(count_lines_with(p.profiled.err, "mpidle") == 1);
  CHECK_THAT(p.profiled.err, Catch::Contains("cannot write"));
  // Nothing half-written was published.
  CHECK(log_tree_runs(tree).runs.empty());
}

TEST_CASE("fleet: a run counts for the user it belongs to, never for another", "[mpi]") {
  if (const auto why = why_no_other_users(); !why.empty()) {
    skip_test(why);
  }
  const std::string writers = "47000", admins = "47100", alice = "47001", bob = "47002";
  std::string why;
  const fs::path tree = site_tree("log_tree_fleet_owners", writers, admins, why);
  if (tree.empty()) {
    skip_test(why);
  }
  const auto a = job_as(alice, writers, tree, {"whole"});
  INFO("alice: " << a.err);
  if (a.status != 0) {
    REQUIRE(run(as_user(alice, writers, {"/usr/bin/test", "-x", program("fault_dies")})).status !=
            0);
    skip_test("another user cannot run the test programs from this build tree");
  }
  const auto b = job_as(bob, writers, tree, {"whole"});
  INFO("bob: " << b.err);
  REQUIRE(b.status == 0);
  fs::path bob_run, alice_run;
  for (const auto& r : log_tree_runs(tree).runs) {
    if (r.filename().string().rfind(bob + "_", 0) == 0) bob_run = r;
    if (r.filename().string().rfind(alice + "_", 0) == 0) alice_run = r;
  }
  REQUIRE(!bob_run.empty());
  REQUIRE(!alice_run.empty());
  const auto bob_record = read_json(bob_run / "job.json");
  REQUIRE(bob_record["job"]["user"] == bob);  // the uid's own number: no $USER
  // Bob forges a run of Alice's: a directory named as hers are, and a record that
  // claims her. And he puts a record of his own in a directory named for her.
  auto forged = bob_record;
  forged["job"]["user"] = alice;
  const auto forged_file = scratch_dir("forged_job.json");
  std::ofstream(forged_file) << forged.dump();
  fs::permissions(forged_file,
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const fs::path day = bob_run.parent_path();
  const auto forged_run = day / (alice + "_forged_99999_000000");
  const auto misnamed_run = day / (alice + "_misnamed_1_000000");
  for (const auto& [dir, from] : {std::pair{forged_run, fs::path(forged_file)},
                                  std::pair{misnamed_run, bob_run / "job.json"}}) {
    REQUIRE(run(as_user(bob, writers, {"/bin/mkdir", dir.string()})).status == 0);
    REQUIRE(run(as_user(bob, writers, {"/bin/cp", from.string(), (dir / "job.json").string()}))
                .status == 0);
  }
  // Bob names Alice's run under a name of his own (a link to her directory), links
  // a job.json of his to her record and another to a file outside the tree, and
  // tries a hard link to her record (which the kernel refuses him where
  // fs.protected_hardlinks is on, as Debian's default is).
  const auto linked_run = day / (bob + "_linked_99998_000001");
  const auto to_record = day / (bob + "_record_99997_000001");
  const auto to_outside = day / (bob + "_outside_99996_000001");
  const auto hard = day / (bob + "_hard_99995_000001");
  const auto as_bob = [&](std::vector<std::string> argv) {
    return run(as_user(bob, writers, std::move(argv))).status;
  };
  REQUIRE(as_bob({"/bin/ln", "-s", alice_run.string(), linked_run.string()}) == 0);
  for (const auto& d : {to_record, to_outside, hard})
    REQUIRE(as_bob({"/bin/mkdir", d.string()}) == 0);
  REQUIRE(as_bob({"/bin/ln", "-s", (alice_run / "job.json").string(),
                  (to_record / "job.json").string()}) == 0);
  REQUIRE(as_bob({"/bin/ln", "-s", forged_file, (to_outside / "job.json").string()}) == 0);
  const bool hard_linked =
      as_bob({"/bin/ln", (alice_run / "job.json").string(), (hard / "job.json").string()}) == 0;
  if (!hard_linked) WARN("the kernel refused Bob a hard link to Alice's record");
  // The ingester (root here) counts Alice's and Bob's real runs and refuses the rest.
  const auto db = scratch_dir("fleet_owners.sqlite");
  const auto ingest = run({MPIDLE_BIN, "fleet", "ingest", tree.string(), "--db", db});
  INFO(ingest.out << ingest.err);
  REQUIRE(ingest.status == 0);
  const int refused = 5 + hard_linked;
  CHECK_THAT(ingest.out, Catch::Contains(std::to_string(2 + refused) +
                                         " runs found: 2 added, 0 updated, 0 unchanged, "
                                         "0 skipped, " +
                                         std::to_string(refused) + " refused"));
  for (const auto& link : {linked_run, to_record / "job.json", to_outside / "job.json"}) {
    CHECK_THAT(ingest.err, Catch::Contains(link.string() + ": a symbolic link"));
  }
  if (hard_linked) {
    CHECK(count_lines_with(ingest.err, hard.string()) +
              count_lines_with(ingest.err, alice_run.string()) ==
          1);
  }
  CHECK_THAT(ingest.err, Catch::Contains(forged_run.string() + ": claims user " + alice +
                                         " but belongs to " + bob + "; refused"));
  CHECK_THAT(ingest.err, Catch::Contains(misnamed_run.string() + ": claims user " + bob +
                                         " in a directory named for another; refused"));
  const auto report = run({MPIDLE_BIN, "fleet", "report", "--db", db, "--json"});
  REQUIRE(report.status == 0);
  const auto fleet = nlohmann::json::parse(report.out);
  std::map<std::string, long long> jobs;
  for (const auto& u : fleet["by_user"]) jobs[u["user"].get<std::string>()] = u["jobs"];
  CHECK(jobs == std::map<std::string, long long>{{alice, 1}, {bob, 1}});
  // A site whose logs a service account writes names it: its records may name anyone
  // (Bob standing in for it here), though never in a directory named for another.
  const auto db2 = scratch_dir("fleet_owners_service.sqlite");
  const auto service =
      run({MPIDLE_BIN, "fleet", "ingest", tree.string(), "--db", db2, "--service-account", bob});
  INFO(service.err);
  CHECK_THAT(service.out, Catch::Contains("3 added, 0 updated, 0 unchanged, 0 skipped, " +
                                          std::to_string(refused - 1) + " refused"));
  // And a site may trust every record.
  const auto db3 = scratch_dir("fleet_owners_trusted.sqlite");
  const auto trusted =
      run({MPIDLE_BIN, "fleet", "ingest", tree.string(), "--db", db3, "--trust-records"});
  // Trusted or not, a link is no run, and one file is one run.
  CHECK_THAT(trusted.out, Catch::Contains("4 added, 0 updated, 0 unchanged, 0 skipped, " +
                                          std::to_string(refused - 2) + " refused"));
}
