#pragma once
// The "summary" section of profile.json (schema mpidle-summary/2, described in
// docs/summary-format.md): callsites numbered as in summary.txt, and per group of
// ranks the top-level sequence, each element a tree of loops, pairs, leaves and
// folds with timings in seconds. Version 2 adds folds and omitted_groups;
// version 1 sections are still read.

#include <nlohmann/json.hpp>

#include "summary_set.hpp"

namespace mpidle::compress {

inline constexpr const char* kSummarySchema = "mpidle-summary/2";
inline constexpr const char* kSummarySchemaV1 = "mpidle-summary/1";

nlohmann::json summary_to_json(const SummarySet& set);
// Throws model::ProfileError for anything that is not such a section.
SummarySet summary_from_json(const nlohmann::json& section);

}  // namespace mpidle::compress
