#pragma once
// Whether a run's record may speak for the user it names. In a log tree every user
// can make run directories of their own, so a directory of bob's whose job.json
// claims user alice must not count as alice's job: the record and its directory
// must belong to the user the record names (their files' owner), and a directory of
// a log tree's day (.../YYYY/MM/DD/) named as the log tree names runs must start
// with that user. Files of the superuser or of the ingesting account itself may
// name anyone (no one else can make them), and so may a service account's that
// writes a site's logs.

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mpidle::fleet {

struct OwnerPolicy {
  bool check = true;                  // false: every record's user is trusted
  std::vector<std::string> services;  // accounts whose records may name any user
};

// Why a record (its content `doc`, its file owned by `record_owner`, in run
// directory `run` owned by `run_owner`: the owners of what was read, not of what a
// name reaches now) may not speak for its user, or "" when it may.
std::string owner_refusal(const std::filesystem::path& run, uid_t record_owner, uid_t run_owner,
                          const nlohmann::json& doc, const OwnerPolicy& policy);

}  // namespace mpidle::fleet
