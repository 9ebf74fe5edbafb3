#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

struct Result {
  int status;
  std::string output;  // stdout and stderr
};

Result mpidle(const std::string& args) {
  const std::string cmd = std::string(MPIDLE_BIN) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::size_t lines(const std::string& s) {
  return std::count(s.begin(), s.end(), '\n');
}

}  // namespace

TEST_CASE("bad input to mpidle report: one line, exit status 2", "[report]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mpidle-test-cli";
  fs::create_directories(dir);
  std::ofstream(dir / "garbage.json") << "\x01\x02 not json";
  std::ofstream(dir / "wrong.json") << R"({"schema": "mpidle-profile/9"})";
  std::ofstream(dir / "truncated.json") << R"({"schema": "mpidle-profile/1", "run": {"execu)";

  for (const std::string& arg :
       {std::string("/nonexistent/profile.json"), (dir / "garbage.json").string(),
        (dir / "wrong.json").string(), (dir / "truncated.json").string(), dir.string()}) {
    INFO(arg);
    const auto r = mpidle("report " + arg);
    CHECK(r.status == 2);
    CHECK(lines(r.output) == 1);
    CHECK_THAT(r.output, Catch::StartsWith("mpidle report: "));
  }
  fs::remove_all(dir);
}

TEST_CASE("mpidle usage errors exit 2 with one line", "[report]") {
  for (const std::string args : {"frobnicate", "report", "report a b", "report x --top zero", "run",
                                 "run --callsite-depth 99 -- true", "run --bogus -- true"}) {
    INFO(args);
    const auto r = mpidle(args);
    CHECK(r.status == 2);
    CHECK(lines(r.output) == 1);
  }
}

TEST_CASE("mpidle --help lists every command, each with its own help", "[report]") {
  const auto r = mpidle("--help");
  CHECK(r.status == 0);
  for (const char* cmd : {"run", "report", "config"}) {
    CHECK_THAT(r.output, Catch::Contains(cmd));
    const auto h = mpidle(std::string(cmd) + " --help");
    CHECK(h.status == 0);
    CHECK_THAT(h.output, Catch::StartsWith(std::string("usage: mpidle ") + cmd));
  }
}

TEST_CASE("every command has a manual page with the text of its --help", "[report]") {
  for (const char* cmd : {"run", "report", "sync", "summary", "export", "analyze", "probe",
                          "predict", "compare", "config"}) {
    INFO(cmd);
    const std::string page = std::string(MPIDLE_MAN_DIR) + "/mpidle-" + cmd + ".1";
    std::ifstream in(page);
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    CHECK_THAT(text.str(), Catch::StartsWith(".TH MPIDLE-"));
    // The synopsis of `--help`, with roff's escaped hyphens.
    const auto help = mpidle(std::string(cmd) + " --help").output;
    std::string first = help.substr(7, help.find('\n') - 7);  // after "usage: "
    std::string escaped;
    for (const char c : first) escaped += c == '-' ? std::string("\\-") : std::string(1, c);
    CHECK_THAT(text.str(), Catch::Contains(escaped));
  }
  std::ifstream overview(std::string(MPIDLE_MAN_DIR) + "/mpidle.1");
  std::stringstream text;
  text << overview.rdbuf();
  CHECK_THAT(text.str(), Catch::Contains("MPIDLE_TRACE_MEM"));
  const auto version = mpidle("--version");
  CHECK(version.status == 0);
  CHECK_THAT(version.output, Catch::StartsWith("mpidle 0."));
}

TEST_CASE("mpidle run's help names every option the settings table gives it", "[report]") {
  const auto help = mpidle("run --help").output;
  const auto config = mpidle("config").output;
  for (const char* option : {"--output", "--global-min", "--callsite-depth", "--trace"}) {
    INFO(option);
    CHECK_THAT(help, Catch::Contains(option));
    CHECK_THAT(config, Catch::Contains(std::string("mpidle run ") + option));
  }
  const auto bad = mpidle("run --callsite-depth 0 -- true");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output,
             Catch::Contains("--callsite-depth needs an integer in [1, 16], not \"0\""));
}

TEST_CASE("mpidle run passes the exit status of a command that is not MPI", "[report]") {
  const auto r = mpidle("run --output /tmp/mpidle-test-cli-run -- sh -c 'exit 7'");
  if (!MPIDLE_HAVE_PROFILER) {  // a build of the tools alone (the sanitizer build)
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains("cannot find libmpidle.so"));
    return;
  }
  CHECK(r.status == 7);
  CHECK_THAT(r.output, Catch::Contains("no profile"));
  CHECK_THAT(r.output, Catch::Contains("nothing was intercepted"));
}

TEST_CASE("lost trace records: every command that reads the trace says so in one line",
          "[report]") {
  namespace fs = std::filesystem;
  // A real traced run (the fuzzers' seeds), marked as having lost records.
  const fs::path corpus = fs::path(MPIDLE_SOURCE_DIR) / "tests/fuzz/corpus";
  const fs::path dir = fs::temp_directory_path() / "mpidle-test-cli-lost";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(corpus / "trace/loop_nest.mpidle", dir / "trace.mpidle");
  std::ifstream in(corpus / "profile/loop_nest.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string field = "\"lost_records\": 0";
  REQUIRE(text.find(field) != std::string::npos);
  text.replace(text.find(field), field.size(), "\"lost_records\": 1998848");
  std::ofstream(dir / "profile.json") << text;
  const std::string lost = "1998848 trace records were lost during the run";
  for (const std::string command : {"sync", "analyze", "summary", "export"}) {
    INFO(command);
    const auto r = mpidle(command + " " + dir.string() +
                          (command == "export" ? " --chrome " + (dir / "c.json").string() : ""));
    CHECK(r.status == 0);
    std::istringstream lines_of(r.output);
    std::size_t saying = 0;
    for (std::string line; std::getline(lines_of, line);)
      saying += line.find(lost) != std::string::npos;
    CHECK(saying == 1);
  }
  CHECK_THAT(mpidle("report " + dir.string()).output, Catch::Contains("warning: " + lost));
  REQUIRE(mpidle("report " + dir.string() + " --html " + (dir / "r.html").string()).status == 0);
  std::ifstream html(dir / "r.html");
  const std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  CHECK_THAT(page, Catch::Contains(lost));
  fs::remove_all(dir);
}
