#pragma once
// prediction.json (docs/prediction.md, schema mpidle-prediction/1): one entry per
// target machine, with the predicted wall time and where the time goes per rank,
// function and callsite, and a ranking of the targets.

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/trace_file.hpp"
#include "prediction.hpp"

namespace mpidle::analysis {

inline constexpr const char* kPredictionSchema = "mpidle-prediction/1";
inline constexpr const char* kPredictionFileName = "prediction.json";

// `sites`: how many callsites each target lists at most (all by default, so that
// `mpidle compare` can match every callsite of the run).
nlohmann::json prediction_json(const model::Trace& trace, const std::vector<Prediction>& targets,
                               std::size_t sites = SIZE_MAX);

}  // namespace mpidle::analysis
