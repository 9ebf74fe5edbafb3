#pragma once
// The site-wide log tree (MPIDLE_LOG_DIR, records/log_tree.hpp) made (MPIDLE_LOG_DIR) with its
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

#include <sys/types.h>

#include <cstddef>
#include <ctime>
#include <filesystem>

namespace mpidle::fleet {

struct LogTreeGroups {
  gid_t writers = 0;  // the users whose jobs log
  gid_t admins = 0;   // who reads every log
};

struct LogTreeMade {
  std::filesystem::path first_day, last_day;
};

// LOG_DIR and `days` day directories from the day of `from`, with the permissions
// above (made where missing, set where present). Throws std::runtime_error naming
// the path that failed.
LogTreeMade make_log_tree(const std::filesystem::path& root, const LogTreeGroups& groups,
                          std::time_t from, int days);

// Runs whose every rank died before writing anything leave their staging
// directory (.<name>.incomplete) behind; no reader looks at it. A job may run for
// days with its staging directory untouched, so only those older than the
// longest job are removed.
struct AbandonedRuns {
  std::size_t removed = 0, kept = 0;
};
AbandonedRuns remove_abandoned_runs(const std::filesystem::path& root, double older_than_hours);

}  // namespace mpidle::fleet
