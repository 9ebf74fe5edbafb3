#include "record_owner.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "model/job_metadata.hpp"
#include "model/log_tree.hpp"

namespace mpidle::fleet {

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
  const std::string owner = model::account_name(file.st_uid);
  if (dir.st_uid != file.st_uid) {
    return "its record belongs to " + owner + " and its directory to " +
           model::account_name(dir.st_uid);
  }
  // Files only the superuser or the ingesting account could have written speak
  // for anyone, as do a named service account's.
  const bool trusted =
      file.st_uid == 0 || file.st_uid == ::geteuid() ||
      std::find(policy.services.begin(), policy.services.end(), owner) != policy.services.end();
  if (!trusted && owner != claimed) {
    return "claims user " + claimed + " but belongs to " + owner;
  }
  if (model::is_log_day_directory(run.parent_path()) &&
      !model::log_run_name_may_be_of(run.filename().string(), claimed)) {
    return "claims user " + claimed + " in a directory named for another";
  }
  return {};
}

}  // namespace mpidle::fleet
