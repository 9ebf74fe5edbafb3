#include "fleet/log_tree_setup.hpp"

#include <sys/acl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "fleet/records/log_tree.hpp"

namespace mpidle::fleet {
namespace {

namespace fs = std::filesystem;

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

void day_directory(const fs::path& path, const LogTreeGroups& g) {
  directory(path, g.admins, S_ISGID | S_ISVTX | 0750);
  // The access ACL's mask becomes the group bits of the mode; setgid and sticky stay.
  set_acl(path, ACL_TYPE_ACCESS,
          "u::rwx,g::r-x,g:" + std::to_string(g.writers) + ":-wx,m::rwx,o::---");
  set_acl(path, ACL_TYPE_DEFAULT, "u::rwx,g::r-x,o::---");
}

}  // namespace

LogTreeMade make_log_tree(const fs::path& root, const LogTreeGroups& groups, std::time_t from,
                          int days) {
  LogTreeMade made;
  directory(root, groups.admins, 0751);
  for (int d = 0; d < days; ++d) {
    const std::time_t when = from + static_cast<std::time_t>(d) * 86400;
    std::tm tm{};
    localtime_r(&when, &tm);
    char year[8], month[4], day[4];
    std::strftime(year, sizeof year, "%Y", &tm);
    std::strftime(month, sizeof month, "%m", &tm);
    std::strftime(day, sizeof day, "%d", &tm);
    directory(root / year, groups.admins, 0751);
    directory(root / year / month, groups.admins, 0751);
    day_directory(root / year / month / day, groups);
    if (d == 0) made.first_day = root / year / month / day;
    made.last_day = root / year / month / day;
  }
  return made;
}

AbandonedRuns remove_abandoned_runs(const fs::path& root, double older_than_hours) {
  if (!fs::is_directory(root)) throw std::runtime_error(root.string() + ": not a directory");
  const auto limit = fs::file_time_type::clock::now() -
                     std::chrono::duration_cast<fs::file_time_type::duration>(
                         std::chrono::duration<double, std::ratio<3600>>(older_than_hours));
  AbandonedRuns runs;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(
           root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it.depth() > 3 || !it->is_directory(ec)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!is_staging_name(it->path().filename().string())) continue;
    it.disable_recursion_pending();
    if (fs::last_write_time(it->path(), ec) < limit && !ec) {
      runs.removed += fs::remove_all(it->path(), ec) > 0 && !ec;
    } else {
      ++runs.kept;
    }
  }
  return runs;
}

}  // namespace mpidle::fleet
