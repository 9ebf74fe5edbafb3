#pragma once
// Builds profile.json (schema mpidle-profile/1, see docs/profile-format.md)
// from the merged tables of every rank.

#include <nlohmann/json.hpp>

#include "profile_tables.hpp"
#include "run_info.hpp"

namespace mpidle::model {

nlohmann::json build_profile_json(const ProfileTables& tables, const RunInfo& run);

}  // namespace mpidle::model
