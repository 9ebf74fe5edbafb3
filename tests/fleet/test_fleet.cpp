// mpidle fleet: ingest log trees into a database and report across jobs. The
// truth is the synthetic generator's own sums (bench/fleet_synthetic.py), and
// real runs' job.json files where the tests write runs.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>

#include "fleet/database.hpp"
#include "fleet/fleet_report.hpp"
#include "fleet/ingest.hpp"
#include "fleet/run_files.hpp"
#include "fleet/schema.hpp"
#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

namespace fs = std::filesystem;

constexpr int kJobs = 400;

// A fresh tree of kJobs synthetic runs, and the generator's truth.
nlohmann::json synthetic_tree(const fs::path& tree) {
  fs::remove_all(tree);
  const auto r =
      run({MPIDLE_SYSTEM_PYTHON, std::string(MPIDLE_SOURCE_DIR) + "/bench/fleet_synthetic.py",
           tree.string(), "--jobs", std::to_string(kJobs), "--ranks-max", "256"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

nlohmann::json report_json(const std::string& db, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {MPIDLE_BIN, "fleet", "report", "--db", db, "--json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const auto r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

void check_against_truth(const nlohmann::json& report, const nlohmann::json& truth) {
  const auto& t = report["totals"];
  CHECK(t["jobs"] == truth["jobs"]);
  CHECK(t["core_hours"].get<double>() == Approx(truth["core_hours"].get<double>()));
  CHECK(t["wait_core_hours"].get<double>() == Approx(truth["wait_core_hours"].get<double>()));
  CHECK(t["wait_share"].get<double>() == Approx(truth["wait_core_hours"].get<double>() * 3600 /
                                                truth["rank_seconds"].get<double>()));
  for (const char* key : {"application", "user", "account"}) {
    const auto& groups = truth[std::string("by_") + key];
    CHECK(report[std::string("by_") + key].size() == groups.size());
    for (const auto& row : report[std::string("by_") + key]) {
      const auto& g = groups[row[key].get<std::string>()];
      INFO(key << " " << row[key]);
      CHECK(row["jobs"] == g["jobs"]);
      CHECK(row["core_hours"].get<double>() == Approx(g["core_hours"].get<double>()));
      CHECK(row["wait_core_hours"].get<double>() == Approx(g["wait_core_hours"].get<double>()));
    }
  }
  std::int64_t binned = 0;
  for (const auto& b : report["wait_share_histogram"]) binned += b["jobs"].get<std::int64_t>();
  CHECK(binned == truth["jobs"].get<std::int64_t>());
  // POP's parallel efficiency of the jobs that have one, per tenth.
  REQUIRE(report["parallel_efficiency_histogram"].size() == 10);
  for (std::size_t b = 0; b < 10; ++b) {
    CHECK(report["parallel_efficiency_histogram"][b]["jobs"] ==
          truth["parallel_efficiency_bins"][b]);
  }
  std::int64_t per_day = 0;
  for (const auto& d : report["per_day"]) per_day += d["jobs"].get<std::int64_t>();
  CHECK(per_day == truth["jobs"].get<std::int64_t>());
  // The one application whose wait share the generator raised in its last week.
  REQUIRE(report["rising"].size() == 1);
  CHECK(report["rising"][0]["application"] == truth["rising"]);
  CHECK(report["top_jobs"].size() == 10);
  REQUIRE_FALSE(report["top_callsites"].empty());
  CHECK(report["top_callsites"][0]["function"] == "MPI_Allreduce");
}

// Two reports alike, numbers to rounding (the databases sum in different orders).
void check_same_report(const nlohmann::json& a, const nlohmann::json& b,
                       const std::string& where = "") {
  INFO("at " << where);
  REQUIRE(a.type() == b.type());
  if (a.is_number_float() || b.is_number_float()) {
    CHECK(a.get<double>() == Approx(b.get<double>()).epsilon(1e-9));
  } else if (a.is_object()) {
    REQUIRE(a.size() == b.size());
    for (const auto& [key, value] : a.items())
      check_same_report(value, b.at(key), where + "/" + key);
  } else if (a.is_array()) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      check_same_report(a[i], b[i], where + "/" + std::to_string(i));
    }
  } else {
    CHECK(a == b);
  }
}

}  // namespace

TEST_CASE("ingest is complete, incremental and idempotent, and the report adds up", "[fleet]") {
  const fs::path dir = scratch_dir("fleet_sqlite");
  const auto truth = synthetic_tree(dir / "logs");
  const std::string db = (dir / "fleet.db").string();
  const auto first = run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", db});
  INFO(first.err);
  REQUIRE(first.status == 0);
  CHECK_THAT(first.out, Catch::Contains(std::to_string(kJobs) + " runs found: " +
                                        std::to_string(kJobs) + " added, 0 updated"));
  const auto again = run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", db});
  CHECK_THAT(again.out, Catch::Contains("0 added, 0 updated, " + std::to_string(kJobs) +
                                        " unchanged, 0 skipped"));
  const auto report = report_json(db);
  check_against_truth(report, truth);

  // The text report says the same totals.
  const auto text = run({MPIDLE_BIN, "fleet", "report", "--db", db});
  CHECK_THAT(text.out,
             Catch::StartsWith("mpidle fleet report: " + std::to_string(kJobs) + " jobs"));
  CHECK_THAT(text.out, Catch::Contains("Applications whose wait share rose") &&
                           Catch::Contains(truth["rising"].get<std::string>()));

  // Filters: one user's jobs, and a time window.
  const auto alice = report_json(db, {"--user", "alice"});
  CHECK(alice["totals"]["jobs"] == truth["by_user"]["alice"]["jobs"]);
  CHECK(alice["by_user"].size() == 1);
  const auto chem = report_json(db, {"--account", "chem", "--app", "lammps"});
  for (const auto& j : chem["top_jobs"]) CHECK(j["application"] == "lammps");
  const auto window = report_json(db, {"--since", "2026-11-14", "--until", "2026-11-21"});
  std::int64_t days = 0;
  for (const auto& d : window["per_day"]) {
    CHECK(d["day"].get<std::string>() >= "2026-11-14");
    CHECK(d["day"].get<std::string>() < "2026-11-21");
    ++days;
  }
  CHECK(days == 7);
  CHECK(window["totals"]["jobs"].get<int>() < kJobs);

  // A record changed since (a partial run made whole) is read again, once.
  const fs::path some = fs::path(report["top_jobs"][0]["run"].get<std::string>()) / "job.json";
  auto record = nlohmann::json::parse(read_text(some.string()));
  record["wait_s"] = 0.0;
  std::ofstream(some) << record.dump();
  const auto changed = run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", db});
  CHECK_THAT(changed.out, Catch::Contains("0 added, 1 updated"));
  CHECK(report_json(db)["totals"]["jobs"] == kJobs);
}

TEST_CASE("a run is what the log tree holds: links and second names are refused", "[fleet]") {
  // Any user can write into a log tree's days. A link to another's run, a job.json
  // that links to another's record or to a file outside the tree, and a hard link to
  // a record under a second name would each count a run twice or read what is not
  // the tree's: each is refused with one line, and the totals stay the generator's.
  const fs::path dir = scratch_dir("fleet_links");
  const auto truth = synthetic_tree(dir / "logs");
  const auto runs = log_tree_runs(dir / "logs").runs;
  REQUIRE(runs.size() == static_cast<std::size_t>(kJobs));
  const fs::path a = runs[0], b = runs[1], day = a.parent_path();
  fs::create_directory_symlink(a, day / "linked_99998_000001");
  fs::create_directories(day / "own_99997_000001");
  fs::create_symlink(b / "job.json", day / "own_99997_000001" / "job.json");
  std::ofstream(dir / "outside.json") << read_text((b / "job.json").string());
  fs::create_directories(day / "outside_99996_000001");
  fs::create_symlink(dir / "outside.json", day / "outside_99996_000001" / "job.json");
  fs::create_directories(day / "hard_99995_000001");
  fs::create_hard_link(a / "job.json", day / "hard_99995_000001" / "job.json");
  const std::string db = (dir / "fleet.db").string();
  for (const char* pass : {"first", "again"}) {
    INFO(pass);
    const auto r = run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", db});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const std::string first = std::string(pass) == "first" ? std::to_string(kJobs) : "0";
    const std::string unchanged = std::string(pass) == "first" ? "0" : std::to_string(kJobs);
    CHECK_THAT(r.out, Catch::Contains(std::to_string(kJobs + 4) + " runs found: " + first +
                                      " added, 0 updated, " + unchanged +
                                      " unchanged, 0 skipped, 4 refused"));
    CHECK(count_lines_with(r.err, "a symbolic link") == 3);
    CHECK(count_lines_with(r.err, ": the same record file as ") == 1);
    CHECK(count_lines_with(r.err, "mpidle fleet: ") == 4);
    check_against_truth(report_json(db), truth);
  }
  // Found, then replaced before it is read: a directory by a link to where it went,
  // and a record by another file. Neither is read.
  fleet::WalkCounts counts;
  const auto found = fleet::find_run_files({(dir / "logs").string()}, stderr, counts);
  REQUIRE(found.size() == static_cast<std::size_t>(kJobs + 1));  // with the hard link
  const fleet::RunFile* of_a = nullptr;
  const fleet::RunFile* of_b = nullptr;
  for (const auto& f : found) {
    if (f.run == a) of_a = &f;
    if (f.run == b) of_b = &f;
  }
  REQUIRE(of_a);
  REQUIRE(of_b);
  CHECK_FALSE(fleet::read_run_file(*of_a).empty());
  fs::rename(a, dir / "moved_out");
  fs::create_directory_symlink(dir / "moved_out", a);
  CHECK_THROWS_WITH(fleet::read_run_file(*of_a), Catch::Contains("replaced"));
  fs::rename(b / "job.json", b / "old.json");
  std::ofstream(b / "job.json") << read_text((b / "old.json").string());
  CHECK_THROWS_WITH(fleet::read_run_file(*of_b), Catch::Contains("replaced by another file"));
}

TEST_CASE("a version 1 database is upgraded in place and keeps its jobs", "[fleet]") {
  // Version 2 added POP's efficiencies, version 3 the record files' identities. Made a
  // version 1 database by taking them out of a fresh one (SQLite drops columns since
  // 3.35), the next command migrates it: the jobs stay, their efficiencies are
  // unknown until their records change.
  const fs::path dir = scratch_dir("fleet_upgrade");
  const auto truth = synthetic_tree(dir / "logs");
  const std::string path = (dir / "fleet.db").string();
  REQUIRE(run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", path}).status == 0);
  {
    auto db = fleet::open_database(path);
    db->exec(
        "ALTER TABLE jobs DROP COLUMN parallel_efficiency; ALTER TABLE jobs DROP COLUMN "
        "load_balance; ALTER TABLE jobs DROP COLUMN communication_efficiency; DROP INDEX "
        "jobs_by_record; ALTER TABLE jobs DROP COLUMN record_identity; DELETE FROM "
        "schema_version WHERE version >= 2");
  }
  const auto report = report_json(path);
  CHECK(report["totals"]["jobs"] == truth["jobs"]);
  std::int64_t with_efficiency = 0;
  for (const auto& b : report["parallel_efficiency_histogram"]) {
    with_efficiency += b["jobs"].get<std::int64_t>();
  }
  CHECK(with_efficiency == 0);
  auto db = fleet::open_database(path);
  CHECK(db->query("SELECT version FROM schema_version ORDER BY version").size() ==
        static_cast<std::size_t>(fleet::kSchemaVersion));
  CHECK(db->query("SELECT record_identity FROM jobs WHERE record_identity IS NULL").size() ==
        static_cast<std::size_t>(kJobs));
  CHECK(db->query("SELECT parallel_efficiency FROM jobs").size() ==
        static_cast<std::size_t>(kJobs));
}

TEST_CASE("corrupt, cut and foreign files get one line each and are counted", "[fleet]") {
  const fs::path dir = scratch_dir("fleet_bad");
  const fs::path day = dir / "logs/2026/11/20";
  const auto make = [&](const std::string& name, const std::string& file, const std::string& text) {
    fs::create_directories(day / name);
    std::ofstream(day / name / file) << text;
  };
  make("a_x_1_000000", "job.json", "\x01\x02garbage");
  make("b_x_2_000000", "job.json", R"({"schema": "mpidle-job/1", "status": "whole", "wall)");
  make("c_x_3_000000", "job.json", R"({"schema": "someone-else/3"})");
  make("d_x_4_000000", "profile.json", R"({"schema": "mpidle-profile/2", "run": 7})");
  make("e_x_5_000000", "job.json", R"({"schema": "mpidle-job/1", "ranks": "many"})");
  // A run still being written is not looked at.
  make(".f_x_6_000000.incomplete", "job.json", "{");
  const std::string db = (dir / "fleet.db").string();
  const auto r = run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", db});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("5 runs found: 0 added, 0 updated, 0 unchanged, 5 skipped"));
  CHECK(count_lines_with(r.err, "; skipped") == 5);
  CHECK(count_lines_with(r.err, "mpidle fleet: ") == 5);
  CHECK(report_json(db)["totals"]["jobs"] == 0);

  // A database that is not one, and a missing log directory: one line, non-zero exit.
  std::ofstream(dir / "not.db") << "this is not a database, just text of some length......";
  const auto bad_db = run({MPIDLE_BIN, "fleet", "report", "--db", (dir / "not.db").string()});
  CHECK(bad_db.status == 2);
  CHECK(count_lines_with(bad_db.err, "mpidle fleet:") == 1);
  const auto no_dir = run({MPIDLE_BIN, "fleet", "ingest", "/nonexistent/logs", "--db", db});
  CHECK_THAT(no_dir.out, Catch::Contains("1 skipped"));
}

TEST_CASE("ingesters at once into one SQLite file lose nothing", "[fleet]") {
  const fs::path dir = scratch_dir("fleet_concurrent");
  const auto truth = synthetic_tree(dir / "logs");
  const std::string db = (dir / "fleet.db").string();
  std::vector<std::future<Outcome>> ingesters;
  for (int i = 0; i < 4; ++i) {
    ingesters.push_back(std::async(std::launch::async, [&] {
      return run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", db}, {}, 120);
    }));
  }
  std::size_t added = 0;
  for (auto& f : ingesters) {
    const auto r = f.get();
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    const auto at = r.out.find("found: ");
    REQUIRE(at != std::string::npos);
    added += std::stoul(r.out.substr(at + 7));
  }
  CHECK(added == static_cast<std::size_t>(kJobs));  // each run added by exactly one of them
  check_against_truth(report_json(db), truth);
}

TEST_CASE("a real PostgreSQL server holds the same fleet and gives the same report", "[fleet]") {
  const fs::path dir = scratch_dir("fleet_postgres");
  const auto truth = synthetic_tree(dir / "logs");
  const std::string script = std::string(MPIDLE_SOURCE_DIR) + "/tests/fleet/postgres_server.sh";
  const std::string server = (dir / "server").string();
  const auto started = run({"/bin/sh", script, "start", server, "54329"}, {}, 120);
  if (started.status == 77) {
    skip_test(started.err);
  }
  INFO(started.err);
  REQUIRE(started.status == 0);
  struct Stop {
    std::string script, server;
    ~Stop() { run({"/bin/sh", script, "stop", server}); }
  } stop{script, server};
  std::string uri = started.out;
  while (!uri.empty() && uri.back() == '\n') uri.pop_back();
  std::vector<std::future<Outcome>> ingesters;
  for (int i = 0; i < 3; ++i) {
    ingesters.push_back(std::async(std::launch::async, [&] {
      return run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", uri}, {}, 120);
    }));
  }
  for (auto& f : ingesters) {
    const auto r = f.get();
    INFO(r.out << r.err);
    CHECK(r.status == 0);
  }
  const auto again = run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", uri});
  CHECK_THAT(again.out, Catch::Contains(std::to_string(kJobs) + " unchanged"));
  const auto pg = report_json(uri);
  check_against_truth(pg, truth);
  // The same records in SQLite give the same report, number for number.
  const std::string lite = (dir / "fleet.db").string();
  REQUIRE(run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", lite}).status == 0);
  check_same_report(report_json(lite), pg);
  // The schema is versioned: every version up to this mpidle's, once each.
  auto db = fleet::open_database(uri);
  const auto versions = db->query("SELECT version FROM schema_version ORDER BY version");
  REQUIRE(versions.size() == static_cast<std::size_t>(fleet::kSchemaVersion));
  CHECK(fleet::as_integer(versions.back()[0]) == fleet::kSchemaVersion);
  const auto refused = run({MPIDLE_BIN, "fleet", "report", "--db",
                            "postgresql:///postgres?host=/nonexistent&port=1&user=x"});
  CHECK(refused.status == 2);
  CHECK(count_lines_with(refused.err, "cannot connect") == 1);
}

TEST_CASE("the HTML report has its plots and renders in a browser", "[fleet]") {
  const fs::path dir = scratch_dir("fleet_html");
  synthetic_tree(dir / "logs");
  const std::string db = (dir / "fleet.db").string();
  REQUIRE(run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", db}).status == 0);
  const std::string page_file = (dir / "fleet.html").string();
  REQUIRE(run({MPIDLE_BIN, "fleet", "report", "--db", db, "--html", page_file}).status == 0);
  const std::string page = read_text(page_file);
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("<script") == std::string::npos);
  for (const char* id : {"totals", "applications", "users", "accounts", "histogram", "days",
                         "weeks", "jobs", "callsites", "rising"}) {
    CHECK(page.find(std::string("<section id=\"") + id + "\">") != std::string::npos);
  }
  CHECK(page.find("data-name=\"wrf\"") != std::string::npos);
  const char* chromium = "/usr/bin/chromium";
  if (!fs::exists(chromium)) {
    WARN("chromium is not installed (apt-get install chromium): the browser render is skipped");
    return;
  }
  const std::string png = (dir / "fleet.png").string();
  const auto r = run({chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                      "--hide-scrollbars", "--enable-logging=stderr", "--window-size=1280,2400",
                      "--screenshot=" + png, "file://" + page_file},
                     {}, 60);
  INFO(r.err);
  CHECK(r.status == 0);
  const auto counts = run({MPIDLE_SYSTEM_PYTHON,
                           std::string(MPIDLE_SOURCE_DIR) + "/tests/integration/png_colors.py", png,
                           "76,120,168", "214,39,40"});
  REQUIRE(counts.status == 0);
  long compute = 0, wait = 0;
  std::istringstream(counts.out) >> compute >> wait;
  // Bars and columns of both colours were drawn.
  CHECK(compute > 5000);
  CHECK(wait > 2000);
}

TEST_CASE("logdir clean removes only abandoned staging directories older than the limit",
          "[fleet]") {
  const fs::path tree = scratch_dir("logdir_clean");
  const fs::path day = tree / "2026/11/20";
  for (const char* name : {".old_x_1_000000.incomplete", ".new_x_2_000000.incomplete",
                           "whole_x_3_000000", ".hidden-but-not-staging"}) {
    fs::create_directories(day / name);
    std::ofstream(day / name / "profile.json") << "{}";
  }
  const auto three_days_ago = fs::file_time_type::clock::now() - std::chrono::hours(72);
  fs::last_write_time(day / ".old_x_1_000000.incomplete", three_days_ago);
  fs::last_write_time(day / "whole_x_3_000000", three_days_ago);
  const auto r = run({MPIDLE_BIN, "logdir", "clean", tree.string(), "--older-than", "48"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("1 abandoned runs removed") && Catch::Contains("1 still"));
  CHECK_FALSE(fs::exists(day / ".old_x_1_000000.incomplete"));
  CHECK(fs::exists(day / ".new_x_2_000000.incomplete"));
  CHECK(fs::exists(day / "whole_x_3_000000/profile.json"));
  CHECK(fs::exists(day / ".hidden-but-not-staging"));
  // Bad input: one line, non-zero exit.
  const auto bad = run({MPIDLE_BIN, "logdir", "clean", tree.string(), "--older-than", "soon"});
  CHECK(bad.status == 2);
  CHECK(count_lines_with(bad.err, "mpidle logdir") == 1);
  CHECK(run({MPIDLE_BIN, "logdir", "clean", "/nonexistent/tree"}).status == 2);
  CHECK(run({MPIDLE_BIN, "logdir", "sweep", tree.string()}).status == 2);
}

TEST_CASE("the HTML report reads as a centre reads it: axes, units, whole labels, one page wide",
          "[fleet]") {
  // 3,000 jobs over 60 days: a column a day; 100 days: by week.
  for (const int days : {60, 100}) {
    INFO(days << " days");
    const fs::path dir = scratch_dir("fleet_html_" + std::to_string(days));
    const auto made =
        run({MPIDLE_SYSTEM_PYTHON, std::string(MPIDLE_SOURCE_DIR) + "/bench/fleet_synthetic.py",
             (dir / "logs").string(), "--jobs", "3000", "--days", std::to_string(days)});
    REQUIRE(made.status == 0);
    const std::string db = (dir / "fleet.db").string();
    REQUIRE(run({MPIDLE_BIN, "fleet", "ingest", (dir / "logs").string(), "--db", db}).status == 0);
    const std::string page_file = (dir / "fleet.html").string();
    REQUIRE(run({MPIDLE_BIN, "fleet", "report", "--db", db, "--html", page_file}).status == 0);
    const std::string page = read_text(page_file);
    // Every chart within 960 px, whatever the number of days or weeks.
    std::size_t charts = 0;
    for (std::size_t at = 0; (at = page.find("<svg width=\"", at)) != std::string::npos; ++at) {
      ++charts;
      CHECK(std::stod(page.substr(at + 12)) <= 960);
    }
    // 4 bar charts (application, user, account, how the job ended), 2 histograms, days, weeks
    CHECK(charts == (days <= 62 ? 10u : 8u));
    // Every column chart has a value axis: its unit and at least two ticks with values.
    std::size_t axes = 0;
    for (std::size_t at = 0; (at = page.find("<g class=\"axis\">", at)) != std::string::npos;
         ++at) {
      ++axes;
      const std::string axis = page.substr(at, page.find("</g>", at) - at);
      CHECK(axis.find("class=\"unit\"") != std::string::npos);
      std::size_t ticks = 0;
      for (std::size_t t = 0; (t = axis.find("class=\"tick\"", t)) != std::string::npos; ++t) {
        ++ticks;
      }
      CHECK(ticks >= 2);
    }
    CHECK(axes == charts - 4);  // all but the four bar charts, whose bars carry their values
    // Units that fit: 3,000 jobs of hundreds of core-hours each read in thousands.
    CHECK(page.find("k core-hours, ") != std::string::npos);
    CHECK((page.find("Core time per day") != std::string::npos) == (days <= 62));
    if (days > 62) CHECK(page.find("read by week") != std::string::npos);
    // The page rendered in a window of 1,024 px holds as much of each colour as in
    // one of 1,600 px: nothing is cut at the right.
    const char* chromium = "/usr/bin/chromium";
    if (!fs::exists(chromium)) {
      WARN("chromium is not installed (apt-get install chromium): the browser render is skipped");
      continue;
    }
    std::map<int, std::pair<long, long>> colours;
    for (const int width : {1024, 1600}) {
      const std::string png = (dir / ("fleet-" + std::to_string(width) + ".png")).string();
      const auto r = run({chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                          "--hide-scrollbars", "--window-size=" + std::to_string(width) + ",3200",
                          "--screenshot=" + png, "file://" + page_file},
                         {}, 60);
      INFO(r.err);
      REQUIRE(r.status == 0);
      const auto counts = run({MPIDLE_SYSTEM_PYTHON,
                               std::string(MPIDLE_SOURCE_DIR) + "/tests/integration/png_colors.py",
                               png, "76,120,168", "214,39,40"});
      REQUIRE(counts.status == 0);
      std::istringstream(counts.out) >> colours[width].first >> colours[width].second;
    }
    INFO("compute pixels " << colours[1024].first << " / " << colours[1600].first << ", wait "
                           << colours[1024].second << " / " << colours[1600].second);
    CHECK(colours[1024].first > 5000);
    CHECK(colours[1024].first == colours[1600].first);
    CHECK(colours[1024].second == colours[1600].second);
  }
}
