#include "fleet/records/log_tree.hpp"

#include <algorithm>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mpidle::fleet {
namespace {

namespace fs = std::filesystem;

// Whether `text` is digits only, and `size` of them (any number but none: 0).
bool all_digits(const std::string& text, std::size_t size = 0) {
  return !text.empty() && (size == 0 || text.size() == size) &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string safe(const std::string& text, std::size_t max) {
  std::string out;
  for (const char c : text.substr(0, max)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '+' || c == '-';
    out += ok ? c : '-';
  }
  if (out.empty() || out == "." || out == "..") out = "unknown";
  return out;
}

std::string staging_name(const std::string& name) {
  return "." + name + kStagingSuffix;
}

// rename(2) that never replaces: renameat2's RENAME_NOREPLACE where the filesystem
// has it, else link-free fallback through a check (a race there is reported by the
// rename failing on a non-empty target).
bool rename_no_replace(const fs::path& from, const fs::path& to) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (errno != EINVAL && errno != ENOSYS) return false;
  struct stat st {};
  if (lstat(to.c_str(), &st) == 0) {
    errno = EEXIST;
    return false;
  }
  return ::rename(from.c_str(), to.c_str()) == 0;
}

// The n-th choice of a run's name: "name", then "name-2", "name-3", ...
std::string numbered(const std::string& name, int n) {
  return n == 1 ? name : name + "-" + std::to_string(n);
}

std::string last_error() {
  return std::strerror(errno);
}

}  // namespace

fs::path log_day_directory(const fs::path& log_dir, std::time_t when) {
  std::tm tm{};
  localtime_r(&when, &tm);
  char day[16];
  std::strftime(day, sizeof day, "%Y/%m/%d", &tm);
  return log_dir / day;
}

std::string log_run_name(const std::string& user, const std::string& executable,
                         const std::string& job_id, std::time_t when) {
  std::tm tm{};
  localtime_r(&when, &tm);
  char time[16];
  std::strftime(time, sizeof time, "%H%M%S", &tm);
  return safe(user, 64) + "_" + safe(fs::path(executable).filename().string(), 64) + "_" +
         (job_id.empty() ? std::string("nojob") : safe(job_id, 64)) + "_" + time;
}

bool is_log_day_directory(const fs::path& dir) {
  const fs::path month = dir.parent_path();
  return all_digits(dir.filename().string(), 2) && all_digits(month.filename().string(), 2) &&
         all_digits(month.parent_path().filename().string(), 4);
}

bool log_run_name_may_be_of(const std::string& name, const std::string& user) {
  // safe() leaves no '_' in a field: a name log_run_name made has exactly three, and
  // ends in the time, HHMMSS (and "-N" for a taken name).
  if (std::count(name.begin(), name.end(), '_') != 3) return true;
  const std::string time = name.substr(name.rfind('_') + 1);
  const bool made_here = all_digits(time.substr(0, 6), 6) &&
                         (time.size() == 6 || (time[6] == '-' && all_digits(time.substr(7))));
  return !made_here || name.substr(0, name.find('_')) == safe(user, 64);
}

bool is_staging_name(const std::string& name) {
  const std::string suffix = kStagingSuffix;
  return !name.empty() && name.front() == '.' && name.size() > suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::optional<LogRun> reserve_log_run(const fs::path& day_directory, const std::string& name,
                                      std::string& error) {
  // Every writer of a tree can make its year, month and day directories: one made
  // a link (to a directory of the maker's) would take every user's runs of that day
  // there. The tree's root may be a link (the site names it); nothing below it is
  // followed, or created through a link. `made`: all three must be there by now.
  const bool dated = is_log_day_directory(day_directory);
  auto linked = [&](bool made) {
    fs::path level = day_directory;
    for (int i = 0; i < 3 && dated; ++i, level = level.parent_path()) {
      struct stat st {};
      const bool there = lstat(level.c_str(), &st) == 0;
      if ((there && !S_ISDIR(st.st_mode)) || (!there && made)) {
        error = level.string() + " is a symbolic link or no directory: runs are not written there";
        return true;
      }
    }
    return false;
  };
  if (linked(false)) return std::nullopt;
  std::error_code ec;
  fs::create_directories(day_directory, ec);
  if (ec && !fs::is_directory(day_directory)) {
    error = "cannot create " + day_directory.string() + " (" + ec.message() + ")";
    return std::nullopt;
  }
  if (linked(true)) return std::nullopt;
  for (int n = 1; n <= 1000; ++n) {
    const std::string candidate = numbered(name, n);
    struct stat st {};
    if (lstat((day_directory / candidate).c_str(), &st) == 0) continue;
    const fs::path staging = day_directory / staging_name(candidate);
    // mkdir is the reservation: of two runs choosing the same name, one gets it.
    if (::mkdir(staging.c_str(), 0777) == 0) return LogRun{staging, day_directory / candidate};
    if (errno != EEXIST) {
      error = "cannot create " + staging.string() + " (" + last_error() + ")";
      return std::nullopt;
    }
  }
  error = "no free run name in " + day_directory.string() + " for " + name;
  return std::nullopt;
}

fs::path publish_log_run(const LogRun& run, std::string& error) {
  const fs::path day = run.final_path.parent_path();
  const std::string name = run.final_path.filename().string();
  for (int n = 1; n <= 1000; ++n) {
    const fs::path target = day / numbered(name, n);
    if (rename_no_replace(run.staging, target)) return target;
    if (errno != EEXIST && errno != ENOTEMPTY) break;
  }
  error = "cannot move " + run.staging.string() + " to " + run.final_path.string() + " (" +
          last_error() + ")";
  return {};
}

fs::path publish_partial_rank(const LogRun& run, const std::string& rank_directory,
                              std::string& error) {
  const fs::path rank_path(rank_directory);
  const fs::path rank_name = rank_path.filename();
  if (rename_no_replace(run.staging, run.final_path)) {
    return run.final_path / "partial" / rank_name;
  }
  std::error_code ec;
  if (errno == ENOENT && fs::exists(run.final_path / "partial" / rank_name, ec)) {
    return run.final_path / "partial" / rank_name;  // moved with the run another rank published
  }
  if (errno != EEXIST && errno != ENOTEMPTY) {
    error = "cannot move " + run.staging.string() + " to " + run.final_path.string() + " (" +
            last_error() + ")";
    return {};
  }
  // Published by another rank already: this rank's directory joins it, and the
  // staging directory goes once no other late rank has anything left in it.
  const fs::path into = run.final_path / "partial";
  fs::create_directories(into, ec);
  if (!rename_no_replace(rank_path, into / rank_name)) {
    error =
        "cannot move " + rank_path.string() + " into " + into.string() + " (" + last_error() + ")";
    return {};
  }
  ::rmdir((run.staging / "partial").c_str());
  ::rmdir(run.staging.c_str());
  return into / rank_name;
}

}  // namespace mpidle::fleet
