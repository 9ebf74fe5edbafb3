#pragma once
// Builds profile.json (schema mpidle-profile/2, see docs/profile-format.md) and the
// rank × callsite matrix beside it (rank_matrix.hpp) from the merged summary.

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile_summary.hpp"
#include "rank_statistics.hpp"
#include "run_info.hpp"

namespace mpidle::model {

struct ProfileDocument {
  nlohmann::json profile;              // profile.json
  std::vector<std::byte> rank_matrix;  // kRankMatrixFile
  std::string rank_minima;             // kRankMinimaFile
};

ProfileDocument build_profile(const ProfileSummary& summary, const RunInfo& run);

// Tables that already hold every rank (tests, synthetic inputs): summarize_all, then
// build_profile.
ProfileDocument build_profile(const ProfileTables& tables, const RunInfo& run);

// The windows' root causes (Calibration::causes) into profile.json: each callsite
// row the windows saw wait gets "root_causes", its wait split in the windows'
// proportions and the wait states they rest on; "calibration" gets their totals
// (docs/profile-format.md, "Why it waited"). Nothing without causes.
void add_window_causes(nlohmann::json& profile, const Calibration& calibration);

// profile.json's "calibration" section (docs/profile-format.md): where the calls came
// from, and per key the calls judged, their exact wait, the calibrated baseline and
// the robust one beside it.
nlohmann::json calibration_json(const Calibration& calibration, const GlobalMinima& minima);

}  // namespace mpidle::model
