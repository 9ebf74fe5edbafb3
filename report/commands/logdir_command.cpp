// mpidle logdir init | clean: the site-wide log tree (MPIDLE_LOG_DIR) with its
// permissions (fleet/log_tree_setup.hpp), as darshan-mk-log-dirs makes Darshan's.
// The day directories are made ahead (a year by default) by the administrator,
// since users cannot create directories under LOG_DIR.
#include <grp.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>

#include "fleet/log_tree_setup.hpp"
#include "report/commands/command.hpp"

namespace mpidle::report {
namespace {

namespace fs = std::filesystem;

struct LogdirOptions {
  fs::path root;
  std::string writers, admins;
  gid_t writers_gid = 0, admins_gid = 0;
  int days = 366;
  std::time_t from = 0;
};

// A group by name or number; a UsageError if there is none.
gid_t group_id(const std::string& name, const char* option) {
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
    return static_cast<gid_t>(std::stoul(name));
  }
  if (const group* g = getgrnam(name.c_str())) return g->gr_gid;
  throw UsageError(std::string(option) + " " + name + ": no such group");
}

std::time_t parse_date(const std::string& text) {
  std::tm tm{};
  if (!strptime(text.c_str(), "%Y-%m-%d", &tm)) {
    throw UsageError("--from " + text + ": not a date (YYYY-MM-DD)");
  }
  tm.tm_hour = 12;  // noon: adding days never crosses a daylight-saving change twice
  tm.tm_isdst = -1;
  return std::mktime(&tm);
}

LogdirOptions parse_logdir_args(const Args& args) {
  LogdirOptions o;
  o.from = std::time(nullptr);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--writers") {
      o.writers = value();
    } else if (a == "--admin-group") {
      o.admins = value();
    } else if (a == "--days") {
      const std::string& v = value();
      const double days = number_option(a, v);
      if (days < 1 || days > 3660 || days != static_cast<int>(days)) {
        throw UsageError("--days " + v + ": not an integer in [1, 3660]");
      }
      o.days = static_cast<int>(days);
    } else if (a == "--from") {
      o.from = parse_date(value());
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option " + a);
    } else if (o.root.empty()) {
      o.root = a;
    } else {
      throw UsageError("one LOG_DIR only, not also " + a);
    }
  }
  if (o.root.empty()) throw UsageError("names no LOG_DIR");
  if (o.writers.empty()) throw UsageError("needs --writers GROUP (the users whose jobs log)");
  if (o.admins.empty()) throw UsageError("needs --admin-group GROUP (who reads every log)");
  o.writers_gid = group_id(o.writers, "--writers");
  o.admins_gid = group_id(o.admins, "--admin-group");
  return o;
}

int clean_command(Args args) {
  fs::path root;
  double hours = 14 * 24;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--older-than") {
      if (i + 1 >= args.size()) throw UsageError("--older-than needs a value (hours)");
      const std::string& value = args[++i];
      hours = number_option("--older-than", value);
      if (hours <= 0)
        throw UsageError("--older-than " + value + ": not a positive number of hours");
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw UsageError("unknown option " + args[i]);
    } else if (root.empty()) {
      root = args[i];
    } else {
      throw UsageError("one LOG_DIR only, not also " + args[i]);
    }
  }
  if (root.empty()) throw UsageError("names no LOG_DIR");
  const fleet::AbandonedRuns runs = fleet::remove_abandoned_runs(root, hours);
  std::printf("mpidle: %zu abandoned runs removed from %s, %zu still being written kept\n",
              runs.removed, root.c_str(), runs.kept);
  return 0;
}

int init_command(Args args) {
  const LogdirOptions o = parse_logdir_args(args);
  const fleet::LogTreeMade made =
      fleet::make_log_tree(o.root, {o.writers_gid, o.admins_gid}, o.from, o.days);
  std::printf("mpidle: log tree %s ready from %s to %s (%d days): writers %s, readers %s\n",
              o.root.c_str(), made.first_day.c_str(), made.last_day.c_str(), o.days,
              o.writers.c_str(), o.admins.c_str());
  std::printf("mpidle: set MPIDLE_LOG_DIR=%s for the jobs (docs/fleet.md)\n", o.root.c_str());
  return 0;
}

}  // namespace

int logdir_command(Args args) {
  if (args.empty()) throw UsageError("needs a subcommand: init or clean");
  if (args[0] == "init") return init_command(args.subspan(1));
  if (args[0] == "clean") return clean_command(args.subspan(1));
  throw UsageError("unknown subcommand " + args[0] + " (init or clean)");
}

}  // namespace mpidle::report
