#pragma once
// The HTML report's view of how wait was estimated: per top callsite the
// distribution of its calls' durations (the histograms in profile.json, as IPM
// shows them), and the estimates side by side (robust, minimum method, and the
// exact wait of the trace analysis when the run has one).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/profile_reader.hpp"

namespace mpidle::report {

// Durations of each callsite in `top` (at most 16): bars of calls per power of two
// of nanoseconds, with the time they hold in each bar's tooltip.
std::string durations_section(const std::vector<const model::CallsiteRow*>& top);

// Wait per callsite under each estimate; `analysis` is the run's analysis.json
// (null without: the exact column is left out).
std::string estimates_section(const std::vector<const model::CallsiteRow*>& top,
                              const nlohmann::json& analysis);

}  // namespace mpidle::report
