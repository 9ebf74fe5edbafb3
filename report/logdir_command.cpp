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
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>

#include "command.hpp"

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
  if (args.empty() || args[0] != "init") throw UsageError("the only subcommand is init");
  LogdirOptions o;
  o.from = std::time(nullptr);
  for (std::size_t i = 1; i < args.size(); ++i) {
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

}  // namespace

int logdir_command(Args args) {
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

}  // namespace mpidle::report
