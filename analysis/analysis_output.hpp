#pragma once
// analysis.json (schema mpidle-analysis/1, docs/analysis-format.md).

#include <nlohmann/json.hpp>

#include "accuracy.hpp"
#include "wait_states.hpp"

namespace mpidle::analysis {

inline constexpr const char* kAnalysisSchema = "mpidle-analysis/1";
inline constexpr const char* kAnalysisFileName = "analysis.json";

nlohmann::json analysis_json(const model::Trace& trace, const WaitStates& waits,
                             const Accuracy& accuracy);

}  // namespace mpidle::analysis
