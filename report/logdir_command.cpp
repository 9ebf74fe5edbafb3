// mpidle logdir init: the site-wide log tree (MPIDLE_LOG_DIR) with its
// permissions, as darshan-mk-log-dirs makes Darshan's. The day directories are
// made ahead (a year by default) by the administrator, since users cannot create
// directories under LOG_DIR.
//
// Permissions (POSIX ACLs, with libacl: the only way to let a group create entries
// that another group reads, without a world-writable directory):
//   LOG_DIR, YYYY, MM   owner rwx, admin group r-x, others --x (to reach the day)
//   YYYY/MM/DD          setgid and sticky; owner rwx, admin group r-x, writers -wx,
//                       others ---; default ACL u::rwx,g::r-x,o::---
// A run directory made in a day directory belongs to its user and to the admin
// group (setgid), whatever the user's umask: the user reads and writes it, the
// admin group reads it, no one else sees it, and no other user can rename or
// remove it (sticky). Writers cannot list a day directory.
#include <grp.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>

#include "command.hpp"
#include "model/log_tree.hpp"

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

[[noreturn]] void fail(const fs::path& path, const char* what) {
  throw std::runtime_error(path.string() + ": cannot " + what + " (" + std::strerror(errno) + ")");
}

void set_acl(const fs::path& path, acl_type_t type, const std::string& text) {
  acl_t acl = acl_from_text(text.c_str());
  if (!acl) throw std::runtime_error("bad ACL " + text);
  const int rc = acl_set_file(path.c_str(), type, acl);
  const int saved = errno;
  acl_free(acl);
  errno = saved;
  if (rc != 0) {
    fail(path, errno == ENOTSUP ? "set an ACL: the filesystem has no POSIX ACLs" : "set an ACL");
  }
}

// A directory with exactly this owner group and mode (made if missing).
void directory(const fs::path& path, gid_t gid, mode_t mode) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) fail(path, "create");
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    fail(path, "use");
  }
  if (::chown(path.c_str(), static_cast<uid_t>(-1), gid) != 0) fail(path, "change its group");
  if (::chmod(path.c_str(), mode) != 0) fail(path, "change its mode");
}

void day_directory(const fs::path& path, const LogdirOptions& o) {
  directory(path, o.admins_gid, S_ISGID | S_ISVTX | 0750);
  // The access ACL's mask becomes the group bits of the mode; setgid and sticky stay.
  set_acl(path, ACL_TYPE_ACCESS,
          "u::rwx,g::r-x,g:" + std::to_string(o.writers_gid) + ":-wx,m::rwx,o::---");
  set_acl(path, ACL_TYPE_DEFAULT, "u::rwx,g::r-x,o::---");
}

// Runs whose every rank died before writing anything leave their staging
// directory (.<name>.incomplete) behind; no reader looks at it. A job may run for
// days with its staging directory untouched, so only those older than the
// longest job are removed.
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
  if (!fs::is_directory(root)) throw std::runtime_error(root.string() + ": not a directory");
  const auto limit = fs::file_time_type::clock::now() -
                     std::chrono::duration_cast<fs::file_time_type::duration>(
                         std::chrono::duration<double, std::ratio<3600>>(hours));
  std::size_t removed = 0, kept = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(
           root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it.depth() > 3 || !it->is_directory(ec)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!model::is_staging_name(it->path().filename().string())) continue;
    it.disable_recursion_pending();
    if (fs::last_write_time(it->path(), ec) < limit && !ec) {
      removed += fs::remove_all(it->path(), ec) > 0 && !ec;
    } else {
      ++kept;
    }
  }
  std::printf("mpidle: %zu abandoned runs removed from %s, %zu still being written kept\n", removed,
              root.c_str(), kept);
  return 0;
}

int init_command(Args args) {
  const LogdirOptions o = parse_logdir_args(args);
  fs::path made_first, made_last;
  directory(o.root, o.admins_gid, 0751);
  for (int d = 0; d < o.days; ++d) {
    const std::time_t when = o.from + static_cast<std::time_t>(d) * 86400;
    std::tm tm{};
    localtime_r(&when, &tm);
    char year[8], month[4], day[4];
    std::strftime(year, sizeof year, "%Y", &tm);
    std::strftime(month, sizeof month, "%m", &tm);
    std::strftime(day, sizeof day, "%d", &tm);
    directory(o.root / year, o.admins_gid, 0751);
    directory(o.root / year / month, o.admins_gid, 0751);
    day_directory(o.root / year / month / day, o);
    if (d == 0) made_first = o.root / year / month / day;
    made_last = o.root / year / month / day;
  }
  std::printf("mpidle: log tree %s ready from %s to %s (%d days): writers %s, readers %s\n",
              o.root.c_str(), made_first.c_str(), made_last.c_str(), o.days, o.writers.c_str(),
              o.admins.c_str());
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
