#pragma once
// analysis.json (schema mpidle-analysis/1, docs/analysis-format.md).

#include <filesystem>

#include <nlohmann/json.hpp>

#include "accuracy.hpp"
#include "wait_states.hpp"

namespace mpidle::analysis {

inline constexpr const char* kAnalysisSchema = "mpidle-analysis/1";
inline constexpr const char* kAnalysisFileName = "analysis.json";

nlohmann::json analysis_json(const model::Trace& trace, const WaitStates& waits,
                             const Accuracy& accuracy);

// Compares `waits` with the run's minimum-method estimates and writes
// dir/analysis.json; returns what it wrote. `trace` needs its tables and its
// ranks' headers only. Throws std::runtime_error when the file cannot be written.
// `efficiency`, when given, is written as the "efficiency" section: POP's metrics
// with the ideal-network split (docs/analysis-format.md).
nlohmann::json write_analysis(const std::filesystem::path& dir, const model::Profile& profile,
                              const model::Trace& trace, const WaitStates& waits,
                              const model::PopEfficiency* efficiency = nullptr);

}  // namespace mpidle::analysis
