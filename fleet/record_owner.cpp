#include "record_owner.hpp"

#include <unistd.h>

#include <algorithm>

#include "fleet/records/job_metadata.hpp"
#include "fleet/records/log_tree.hpp"

namespace mpidle::fleet {

std::string owner_refusal(const std::filesystem::path& run, uid_t record_owner, uid_t run_owner,
                          const nlohmann::json& doc, const OwnerPolicy& policy) {
  if (!policy.check) return {};
  const auto job = doc.find("job");
  if (job == doc.end() || !job->is_object()) return {};
  const auto user = job->find("user");
  if (user == job->end() || !user->is_string()) return {};  // it names no one
  const std::string claimed = user->get<std::string>();
  const std::string owner = fleet::account_name(record_owner);
  if (run_owner != record_owner) {
    return "its record belongs to " + owner + " and its directory to " +
           fleet::account_name(run_owner);
  }
  // Files only the superuser or the ingesting account could have written speak
  // for anyone, as do a named service account's.
  const bool trusted =
      record_owner == 0 || record_owner == ::geteuid() ||
      std::find(policy.services.begin(), policy.services.end(), owner) != policy.services.end();
  if (!trusted && owner != claimed) {
    return "claims user " + claimed + " but belongs to " + owner;
  }
  if (fleet::is_log_day_directory(run.parent_path()) &&
      !fleet::log_run_name_may_be_of(run.filename().string(), claimed)) {
    return "claims user " + claimed + " in a directory named for another";
  }
  return {};
}

}  // namespace mpidle::fleet
