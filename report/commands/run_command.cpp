#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>

#include "model/checkpoint_merge.hpp"
#include "model/profile_reader.hpp"
#include "report/commands/command.hpp"
#include "report/launch/launcher.hpp"
#include "report/launch/spawn.hpp"
#include "report/text/text_report.hpp"
#include "settings/config_file.hpp"
#include "settings/settings.hpp"

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
    // -o: the run directory's short name, as mpiP's and Score-P's users type it.
    if (const settings::SettingSpec* spec =
            settings::find_setting_for_option(a == "-o" ? std::string("--output") : a)) {
      std::string value = "1";
      if (spec->type != settings::SettingType::flag) {
        if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
        value = args[++i];
        settings::Settings scratch;
        if (!spec->assign(*spec, scratch, value)) {
          throw UsageError(a + " needs " + settings::setting_expectation(*spec) + ", not \"" +
                           value + "\"");
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

// The settings the ranks will read: the options over the environment over the
// configuration files (the ranks warn of malformed values; this does not).
settings::Settings settings_of_run(const std::map<std::string, std::string>& set) {
  std::vector<std::string> ignored;
  return settings::read_settings(
      [&](const char* name) -> std::optional<std::string> {
        if (const auto given = set.find(name); given != set.end()) return given->second;
        return settings::environment_variable(name);
      },
      ignored);
}

// With MPIDLE_LOG_DIR the ranks choose the run's directory; rank 0 writes where
// it went to a file this command names (MPIDLE_RUN_DIR_FILE).
std::string read_run_dir_file(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// Rank 0 makes the output directory at MPI_Init: without it, no rank started.
std::string why_no_profile(const fs::path& output, const std::map<std::string, std::string>& set) {
  std::error_code ec;
  // Killed (SIGKILL, the out-of-memory killer) or ended otherwise: the ranks'
  // checkpoints hold the run up to their last one.
  const std::string merged =
      model::has_checkpoints(output)
          ? "every rank's latest checkpoint, merged: mpidle report " + output.string()
          : std::string();
  if (!merged.empty() && !fs::is_directory(output / "partial", ec)) {
    return "the program did not reach MPI_Finalize; " + merged;
  }
  if (fs::is_directory(output / "partial", ec)) {
    std::size_t ranks = 0;
    for (const auto& entry : fs::directory_iterator(output / "partial", ec)) {
      ranks += fs::exists(entry.path() / "profile.json", ec);
    }
    return "the program did not reach MPI_Finalize; " +
           (ranks == 1 ? std::string("1 rank left a partial profile")
                       : std::to_string(ranks) + " ranks left partial profiles") +
           " in " + (output / "partial").string() + " (mpidle report " +
           (output / "partial").string() + "/rank-N)" + (merged.empty() ? "" : "; " + merged);
  }
  if (fs::is_directory(output, ec)) {
    return "the program did not reach MPI_Finalize, or the profile could not be written "
           "(see the messages above)";
  }
  const settings::Settings settings = settings_of_run(set);
  if (!settings.enable) return "profiling is off (MPIDLE_ENABLE)";
  fs::create_directories(output, ec);
  if (ec) return "cannot create that directory: " + ec.message();
  fs::remove(output, ec);
  return "nothing was intercepted: no rank called MPI through a shared MPI library (is MPI "
         "linked statically into the program, or is it not an MPI program?)";
}

void print_summary(const fs::path& output) {
  try {
    std::fputs(
        format_summary(model::read_profile(output / "profile.json"), output.string()).c_str(),
        stderr);
  } catch (const model::ProfileError& e) {
    std::fprintf(stderr, "mpidle: %s\n", e.what());
  }
}

std::vector<std::string> launch_command(const std::vector<std::string>& command,
                                        const std::map<std::string, std::string>& set) {
  const LauncherFamily family = recognize_launcher(command, launcher_version);
  check_launcher_matches_build(family, command[0]);
  return forward_environment(command, family, variables_to_forward(set), geteuid() == 0);
}

int run_into_log_tree(const std::vector<std::string>& command,
                      std::map<std::string, std::string> set) {
  char name[] = "/tmp/mpidle-run-XXXXXX";
  const int fd = mkstemp(name);
  if (fd >= 0) close(fd);
  const fs::path told = fd >= 0 ? fs::path(name) : fs::path();
  if (!told.empty()) set["MPIDLE_RUN_DIR_FILE"] = told.string();
  const int status = run_and_wait(launch_command(command, set), set);
  const std::string output = told.empty() ? std::string() : read_run_dir_file(told);
  std::error_code ec;
  if (!told.empty()) fs::remove(told, ec);
  if (output.empty()) {
    std::fprintf(stderr,
                 "mpidle: no profile in the log tree: the program did not reach MPI_Finalize, the "
                 "log tree could not take the run, or nothing was intercepted (see the messages "
                 "above)\n");
    return status;
  }
  if (fs::exists(fs::path(output) / "profile.json", ec)) {
    print_summary(output);
  } else {
    std::fprintf(stderr, "mpidle: no profile in %s: %s\n", output.c_str(),
                 why_no_profile(output, set).c_str());
  }
  return status;
}

}  // namespace

int run_command(Args args) {
  const RunOptions o = parse_run_args(args);
  const fs::path library = find_library();
  std::map<std::string, std::string> set = o.settings;
  const char* preload = std::getenv("LD_PRELOAD");
  set["LD_PRELOAD"] = library.string() + (preload && *preload ? ":" + std::string(preload) : "");
  // A site's log tree takes the run unless the user named a directory.
  const settings::Settings settings = settings_of_run(set);
  if (!settings.log_dir.empty() && settings.output.empty() && settings.enable) {
    return run_into_log_tree(o.command, set);
  }
  const auto given = set.find("MPIDLE_OUTPUT");
  const fs::path output =
      fs::absolute(given == set.end() ? default_output(o.command) : given->second);
  set["MPIDLE_OUTPUT"] = output.string();

  const std::vector<std::string> command = launch_command(o.command, set);
  // Partial profiles and a profile.json left by an earlier run into the same directory
  // must not be taken for this run's.
  std::error_code ec;
  fs::remove_all(output / "partial", ec);
  fs::remove_all(output / model::kCheckpointDirectory, ec);
  const auto launched = fs::file_time_type::clock::now();
  const int status = run_and_wait(command, set);
  const fs::path profile = output / "profile.json";
  if (!fs::exists(profile, ec) || fs::last_write_time(profile, ec) < launched) {
    std::fprintf(stderr, "mpidle: no profile in %s: %s\n", output.c_str(),
                 why_no_profile(output, set).c_str());
    return status;
  }
  print_summary(output);
  return status;
}

}  // namespace mpidle::report
