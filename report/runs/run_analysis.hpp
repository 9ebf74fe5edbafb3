#pragma once
// What a run directory's analysis.json (written by the trace finalize or `mpidle
// analyze`) adds to its profile for the reports and `mpidle compare`: the exact
// wait per callsite, and POP's ideal-network split of communication efficiency.

#include <map>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "analysis/callsite_verdict.hpp"

#include "model/profile_reader.hpp"

namespace mpidle::report {

// The run's `file` (analysis.json, prediction.json), or null when there is none or it
// is not of `schema` (nor of `older_schema`, an earlier version the caller still
// reads, when given).
nlohmann::json run_document(const std::string& run, const char* file, const char* schema,
                            const char* older_schema = nullptr);

// The exact wait of a traced run: per (function, source location) and in total.
struct ExactWaits {
  std::map<std::pair<std::string, std::string>, double> by_site;
  double total_s = 0;
  // Why each callsite waited, where the analysis has root_causes (by function and
  // location), with the callsite its propagated waiting came from most.
  struct Causes {
    analysis::WaitCauses seconds;
    std::string propagated_from;  // "function at location", or empty
    // Where the delays were: "computation before function at location" (or
    // "latency in ...", "bandwidth in ...") for the largest place of each kind
    // group, and "rank 3, rank 0" for the ranks; empty where none.
    std::string computation_at, communication_at, ranks;
  };
  std::map<std::pair<std::string, std::string>, Causes> causes_by_site;
};
// Why one callsite waited: a row of analysis.json's root_causes.callsites (zeros and
// empty places for anything it lacks).
ExactWaits::Causes causes_of(const nlohmann::json& row);
// Where the largest of the three causes was: "computation before F at L on rank 0,
// rank 2", "bandwidth in F at L on rank 1", or "from F at L" (propagated); empty
// where the row does not say.
std::string where_caused(const ExactWaits::Causes& causes);

// A profile's root causes from its trace windows (its callsites' "root_causes") in
// the shape of analysis.json's root_causes, "source": "windows", for the text and
// HTML reports: callsites by decreasing wait, no delays. Null where the windows saw
// no callsite wait.
nlohmann::json window_root_causes(const model::Profile& profile);

// nullopt for a document without the accuracy table.
std::optional<ExactWaits> exact_waits_of(const nlohmann::json& analysis);

// Adds analysis.json's ideal runtime (mpidle analyze) to the profile's efficiency:
// serialization and transfer. Nothing when the document has none.
void add_ideal_network(model::Profile& profile, const nlohmann::json& analysis);

}  // namespace mpidle::report
