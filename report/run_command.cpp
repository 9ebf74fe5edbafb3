#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>

#include "command.hpp"
#include "launcher.hpp"
#include "model/profile_reader.hpp"
#include "model/settings.hpp"
#include "spawn.hpp"
#include "text_report.hpp"

extern char** environ;

namespace mpidle::report {
namespace {

namespace fs = std::filesystem;

// Each option of `mpidle run` sets the MPIDLE_* setting that names it in
// settings_table.def, checked as the profiler would check it.
struct RunOptions {
  std::map<std::string, std::string> settings;  // MPIDLE_* name → value
  std::vector<std::string> command;
};

RunOptions parse_run_args(Args args) {
  RunOptions o;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (const model::SettingSpec* spec = model::find_setting_for_option(a)) {
      std::string value = "1";
      if (spec->type != model::SettingType::flag) {
        if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
        value = args[++i];
        model::Settings scratch;
        if (!spec->assign(*spec, scratch, value)) {
          throw UsageError(a + " needs " + model::setting_expectation(*spec) + ", not \"" + value +
                           "\"");
        }
      }
      o.settings[spec->env] = value;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option " + a + " (put the command after --)");
    } else {
      break;  // the command starts here
    }
  }
  o.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (o.command.empty()) throw UsageError("no command to run (mpidle run -- mpiexec -n 2 ./app)");
  return o;
}

// libmpidle.so sits in ../lib next to bin/ in both the build tree and an install.
fs::path find_library() {
  if (const char* env = std::getenv("MPIDLE_LIBRARY")) return env;
  const fs::path dir = self_directory();
  for (const fs::path& candidate :
       {dir / "../lib/libmpidle.so", dir / "../lib64/libmpidle.so", dir / "libmpidle.so"}) {
    std::error_code ec;
    if (fs::exists(candidate, ec)) return fs::weakly_canonical(candidate, ec);
  }
  throw UsageError("cannot find libmpidle.so next to " + dir.string() +
                   " (set MPIDLE_LIBRARY to its path)");
}

// The application is the first word after the launcher that names a program:
// `mpiexec -n 4 ./app` → app.
std::string application_name(const std::vector<std::string>& command) {
  for (std::size_t i = 1; i < command.size(); ++i) {
    if (!command[i].empty() && command[i][0] != '-' && !find_program(command[i]).empty()) {
      return fs::path(command[i]).filename().string();
    }
  }
  return fs::path(command[0]).filename().string();
}

std::string default_output(const std::vector<std::string>& command) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return "mpidle-" + application_name(command) + "-" + stamp;
}

// Every MPIDLE_* setting of this environment plus those `run` sets: what the ranks need.
std::vector<std::string> variables_to_forward(const std::map<std::string, std::string>& set) {
  std::vector<std::string> names;
  for (const auto& [name, value] : set) names.push_back(name);
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const std::string name = kv.substr(0, kv.find('='));
    if (name.rfind("MPIDLE_", 0) == 0 && !set.count(name)) names.push_back(name);
  }
  return names;
}

// Rank 0 makes the output directory at MPI_Init: without it, no rank started.
std::string why_no_profile(const fs::path& output, const std::map<std::string, std::string>& set) {
  std::error_code ec;
  if (fs::is_directory(output / "partial", ec)) {
    std::size_t ranks = 0;
    for (const auto& entry : fs::directory_iterator(output / "partial", ec)) {
      ranks += fs::exists(entry.path() / "profile.json", ec);
    }
    return "the program did not reach MPI_Finalize; " +
           (ranks == 1 ? std::string("1 rank left a partial profile")
                       : std::to_string(ranks) + " ranks left partial profiles") +
           " in " + (output / "partial").string() + " (mpidle report " +
           (output / "partial").string() + "/rank-N)";
  }
  if (fs::is_directory(output, ec)) {
    return "the program did not reach MPI_Finalize, or the profile could not be written "
           "(see the messages above)";
  }
  std::vector<std::string> ignored;  // the ranks have warned already
  const model::Settings settings = model::parse_settings(
      [&](const char* name) -> std::optional<std::string> {
        if (const auto given = set.find(name); given != set.end()) return given->second;
        if (const char* value = std::getenv(name)) return std::string(value);
        return std::nullopt;
      },
      ignored);
  if (!settings.enable) return "profiling is off (MPIDLE_ENABLE)";
  fs::create_directories(output, ec);
  if (ec) return "cannot create that directory: " + ec.message();
  fs::remove(output, ec);
  return "nothing was intercepted: no rank called MPI through a shared MPI library (is MPI "
         "linked statically into the program, or is it not an MPI program?)";
}

}  // namespace

int run_command(Args args) {
  const RunOptions o = parse_run_args(args);
  const fs::path library = find_library();
  std::map<std::string, std::string> set = o.settings;
  const auto given = set.find("MPIDLE_OUTPUT");
  const fs::path output =
      fs::absolute(given == set.end() ? default_output(o.command) : given->second);
  const char* preload = std::getenv("LD_PRELOAD");
  set["LD_PRELOAD"] = library.string() + (preload && *preload ? ":" + std::string(preload) : "");
  set["MPIDLE_OUTPUT"] = output.string();

  const LauncherFamily family = recognize_launcher(o.command, launcher_version);
  check_launcher_matches_build(family, o.command[0]);
  const std::vector<std::string> command =
      forward_environment(o.command, family, variables_to_forward(set), geteuid() == 0);
  // Partial profiles and a profile.json left by an earlier run into the same directory
  // must not be taken for this run's.
  std::error_code ec;
  fs::remove_all(output / "partial", ec);
  const auto launched = fs::file_time_type::clock::now();
  const int status = run_and_wait(command, set);
  const fs::path profile = output / "profile.json";
  if (!fs::exists(profile, ec) || fs::last_write_time(profile, ec) < launched) {
    std::fprintf(stderr, "mpidle: no profile in %s: %s\n", output.c_str(),
                 why_no_profile(output, set).c_str());
    return status;
  }
  try {
    std::fputs(format_summary(model::read_profile(profile), output.string()).c_str(), stderr);
  } catch (const model::ProfileError& e) {
    std::fprintf(stderr, "mpidle: %s\n", e.what());
  }
  return status;
}

}  // namespace mpidle::report
