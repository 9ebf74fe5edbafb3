#pragma once
// analysis.json's "root_causes" section (docs/analysis-format.md, "Why it waited"):
// the delay analysis (delay_analysis.hpp) by callsite, bounded in P.

#include <cstddef>

#include <nlohmann/json.hpp>

#include "analysis/delay_analysis.hpp"
#include "model/trace_file.hpp"

namespace mpidle::analysis {

// The most delays listed, by long-term cost, and the most ranks named per delay.
inline constexpr std::size_t kTopDelays = 20;
inline constexpr std::size_t kTopDelayRanks = 5;
// Per waiting callsite: the places of the delays that caused it, most first.
inline constexpr std::size_t kTopCausePlaces = 3;

nlohmann::json root_causes_json(const model::Trace& trace, const DelayAnalysis& delays);

}  // namespace mpidle::analysis
