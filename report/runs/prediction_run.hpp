#pragma once
// A prediction read as a run, so that `mpidle compare RUN RUN/prediction.json`
// puts "measured here" next to "predicted there" with the existing comparison.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "model/profile_reader.hpp"

namespace mpidle::report {

// True if `path` is a prediction.json (by its schema).
bool is_prediction_file(const std::filesystem::path& path);

// The target named `machine` (the first when empty) of the prediction at `path`,
// as a profile of the run it predicts (the run directory beside it): per rank wall,
// MPI and wait time, functions and callsites as predicted; the time outside the
// traced span (start-up, finalize) is the measured run's. Throws
// model::ProfileError for a malformed file or an unknown machine.
model::Profile read_prediction_as_profile(const std::filesystem::path& path,
                                          const std::string& machine);
// The same from a prediction document (`where` names it in errors) and the profile
// of the run it predicts, both already in memory.
model::Profile prediction_as_profile(const nlohmann::json& doc, const model::Profile& measured,
                                     const std::string& machine, const std::string& where);

}  // namespace mpidle::report
