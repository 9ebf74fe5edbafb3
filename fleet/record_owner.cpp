#include "record_owner.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "model/log_tree.hpp"

namespace mpidle::fleet {
namespace {

// The account's name, or its number where the system knows no name for it (as the
// profiler names a user without one).
std::string user_name(uid_t uid) {
  passwd entry{};
  passwd* found = nullptr;
  char buffer[4096];
  if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found) return found->pw_name;
  return std::to_string(uid);
}

// Whether `dir` is a log tree's day directory, .../YYYY/MM/DD: only there do run
// directories carry the names the log tree gives them.
bool in_day_directory(const std::filesystem::path& run) {
  const auto digits = [](const std::filesystem::path& p, std::size_t n) {
    const std::string s = p.filename().string();
    return s.size() == n &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const auto day = run.parent_path(), month = day.parent_path(), year = month.parent_path();
  return digits(day, 2) && digits(month, 2) && digits(year, 4);
}

}  // namespace

std::string owner_refusal(const std::filesystem::path& run, const std::filesystem::path& record,
                          const nlohmann::json& doc, const OwnerPolicy& policy) {
  if (!policy.check) return {};
  const auto job = doc.find("job");
  if (job == doc.end() || !job->is_object()) return {};
  const auto user = job->find("user");
  if (user == job->end() || !user->is_string()) return {};  // it names no one
  const std::string claimed = user->get<std::string>();
  struct stat file {
  }, dir{};
  if (::stat(record.c_str(), &file) != 0 || ::stat(run.c_str(), &dir) != 0) {
    return "its owner cannot be read";
  }
  const std::string owner = user_name(file.st_uid);
  if (dir.st_uid != file.st_uid) {
    return "its record belongs to " + owner + " and its directory to " + user_name(dir.st_uid);
  }
  // Files only the superuser or the ingesting account could have written speak
  // for anyone, as do a named service account's.
  const bool trusted =
      file.st_uid == 0 || file.st_uid == ::geteuid() ||
      std::find(policy.services.begin(), policy.services.end(), owner) != policy.services.end();
  if (!trusted && owner != claimed) {
    return "claims user " + claimed + " but belongs to " + owner;
  }
  if (in_day_directory(run) && !model::log_run_name_may_be_of(run.filename().string(), claimed)) {
    return "claims user " + claimed + " in a directory named for another";
  }
  return {};
}

}  // namespace mpidle::fleet
