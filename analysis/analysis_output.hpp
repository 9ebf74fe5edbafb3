#pragma once
// analysis.json (schema mpidle-analysis/1, docs/analysis-format.md) and the text
// report of `mpidle analyze`.

#include <nlohmann/json.hpp>
#include <string>

#include "accuracy.hpp"
#include "wait_states.hpp"

namespace mpidle::analysis {

inline constexpr const char* kAnalysisSchema = "mpidle-analysis/1";
inline constexpr const char* kAnalysisFileName = "analysis.json";

nlohmann::json analysis_json(const model::Trace& trace, const WaitStates& waits,
                             const Accuracy& accuracy);
std::string analysis_text(const nlohmann::json& analysis, std::size_t top);

}  // namespace mpidle::analysis
