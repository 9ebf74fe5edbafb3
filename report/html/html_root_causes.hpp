#pragma once
// The HTML report's "Why it waited": per waiting callsite its waiting split by root
// cause (computation, latency, bandwidth, propagated and from where), as stacked
// bars, and the delays that cost most, from analysis.json's root_causes
// (docs/analysis-format.md).

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace mpidle::report {

// Empty where `analysis` (the run's analysis.json, or null) has no root causes.
std::string root_causes_section(const nlohmann::json& analysis, std::size_t top);

}  // namespace mpidle::report
