#pragma once
// The text report of `mpidle analyze`, from analysis.json (also appended by
// `mpidle report` to a run that has one).

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace mpidle::report {

// Throws nlohmann::json::exception for a document missing fields.
std::string analysis_text(const nlohmann::json& analysis, std::size_t top);

// "Why it waited": analysis.json's root_causes, or a profile's from its trace
// windows (window_root_causes, whose "source" says so). Throws as analysis_text.
std::string root_causes_text(const nlohmann::json& root_causes, std::size_t top);

}  // namespace mpidle::report
