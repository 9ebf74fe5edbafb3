#include "report/runs/run_analysis.hpp"

#include <fstream>

#include "model/json_fields.hpp"
#include "report/commands/command.hpp"

namespace mpidle::report {

// Here, not with the other option helpers in command.cpp: run_document, which the
// report library's pages use, needs it.
std::filesystem::path run_directory(const std::string& run) {
  namespace fs = std::filesystem;
  if (!fs::exists(run)) throw UsageError("no such run directory: " + run);
  return fs::is_directory(run) ? fs::path(run) : fs::path(run).parent_path();
}

nlohmann::json run_document(const std::string& run, const char* file, const char* schema,
                            const char* older_schema) {
  std::ifstream in(run_directory(run) / file);
  if (!in) return nullptr;
  auto doc = model::read_json(in);
  if (doc.is_discarded() || !doc.is_object()) return nullptr;
  const std::string found = doc.value("schema", "");
  if (found != schema && (older_schema == nullptr || found != older_schema)) return nullptr;
  return doc;
}

std::optional<ExactWaits> exact_waits_of(const nlohmann::json& analysis) {
  if (!analysis.is_object() || !analysis.contains("accuracy") ||
      !analysis["accuracy"].is_object() || !analysis["accuracy"].contains("callsites") ||
      !analysis["accuracy"]["callsites"].is_array()) {
    return std::nullopt;
  }
  ExactWaits out;
  for (const auto& row : analysis["accuracy"]["callsites"]) {
    if (!row.is_object() || !row.contains("trace_s") || !row["trace_s"].is_number()) continue;
    const double t = row["trace_s"].get<double>();
    out.by_site[{row.value("function", ""), row.value("location", "")}] += t;
    out.total_s += t;
  }
  const auto causes = analysis.find("root_causes");
  if (causes == analysis.end() || !causes->is_object() || !causes->contains("callsites") ||
      !(*causes)["callsites"].is_array()) {
    return out;
  }
  const auto number = [](const nlohmann::json& row, const char* key) {
    const auto it = row.find(key);
    return it != row.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  for (const auto& row : (*causes)["callsites"]) {
    if (!row.is_object()) continue;
    auto& c = out.causes_by_site[{row.value("function", ""), row.value("location", "")}];
    c.seconds.computation += number(row, "computation_s");
    c.seconds.communication += number(row, "latency_s") + number(row, "bandwidth_s");
    c.seconds.propagated += number(row, "propagated_s");
    const auto from = row.find("propagated_from");
    if (c.propagated_from.empty() && from != row.end() && from->is_array() && !from->empty() &&
        (*from)[0].is_object()) {
      c.propagated_from =
          (*from)[0].value("function", "") + " at " + (*from)[0].value("location", "");
    }
  }
  return out;
}

void add_ideal_network(model::Profile& profile, const nlohmann::json& analysis) {
  if (!analysis.is_object() || !analysis.contains("efficiency")) return;
  const auto& e = analysis["efficiency"];
  if (!e.is_object() || !e.contains("ideal_runtime_s") || !e["ideal_runtime_s"].is_number()) {
    return;
  }
  model::add_ideal_network(profile.efficiency, e["ideal_runtime_s"].get<double>());
}

}  // namespace mpidle::report
