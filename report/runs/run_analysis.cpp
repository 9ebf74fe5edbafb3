#include "report/runs/run_analysis.hpp"

#include <algorithm>
#include <fstream>

#include "model/json_fields.hpp"
#include "report/commands/command.hpp"
#include "report/text/text_report.hpp"

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

ExactWaits::Causes causes_of(const nlohmann::json& row) {
  ExactWaits::Causes c;
  if (!row.is_object()) return c;
  const auto number = [&](const char* key) {
    const auto it = row.find(key);
    return it != row.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  const auto place = [](const nlohmann::json& p) {
    return p.value("function", "") + " at " + p.value("location", "");
  };
  c.seconds.computation = number("computation_s");
  c.seconds.communication = number("latency_s") + number("bandwidth_s");
  c.seconds.propagated = number("propagated_s");
  const auto from = row.find("propagated_from");
  if (from != row.end() && from->is_array() && !from->empty() && (*from)[0].is_object()) {
    c.propagated_from = place((*from)[0]);
  }
  const auto places = row.find("delay_places");
  if (places != row.end() && places->is_array()) {
    for (const auto& p : *places) {
      if (!p.is_object()) continue;
      const std::string kind = p.value("kind", "");
      std::string& at = kind == "computation" ? c.computation_at : c.communication_at;
      if (at.empty()) at = kind + (kind == "computation" ? " before " : " in ") + place(p);
    }
  }
  const auto ranks = row.find("delay_ranks");
  if (ranks != row.end() && ranks->is_array()) {
    for (const auto& r : *ranks) {
      if (!r.is_object() || !r.contains("rank") || !r["rank"].is_number_integer()) continue;
      c.ranks +=
          (c.ranks.empty() ? "rank " : ", rank ") + std::to_string(r["rank"].get<long long>());
    }
  }
  return c;
}

std::string where_caused(const ExactWaits::Causes& c) {
  const auto& s = c.seconds;
  const double most = std::max({s.computation, s.communication, s.propagated});
  if (most <= 0) return "";
  if (s.propagated == most) return c.propagated_from.empty() ? "" : "from " + c.propagated_from;
  const std::string& at = s.computation == most ? c.computation_at : c.communication_at;
  return at.empty() || c.ranks.empty() ? at : at + " on " + c.ranks;
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
  for (const auto& row : (*causes)["callsites"]) {
    if (!row.is_object()) continue;
    auto& c = out.causes_by_site[{row.value("function", ""), row.value("location", "")}];
    const ExactWaits::Causes more = causes_of(row);
    c.seconds.computation += more.seconds.computation;
    c.seconds.communication += more.seconds.communication;
    c.seconds.propagated += more.seconds.propagated;
    for (auto [into, from] : {std::pair{&c.propagated_from, &more.propagated_from},
                              std::pair{&c.computation_at, &more.computation_at},
                              std::pair{&c.communication_at, &more.communication_at},
                              std::pair{&c.ranks, &more.ranks}}) {
      if (into->empty()) *into = *from;
    }
  }
  return out;
}

nlohmann::json window_root_causes(const model::Profile& profile) {
  std::vector<const model::CallsiteRow*> rows;
  std::uint64_t wait_states = 0;
  for (const auto& row : profile.callsites) {
    if (row.causes.wait_states == 0) continue;
    rows.push_back(&row);
    wait_states += row.causes.wait_states;
  }
  if (rows.empty()) return nullptr;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto* a, const auto* b) { return a->wait_s > b->wait_s; });
  nlohmann::json callsites = nlohmann::json::array();
  double wait = 0;
  for (const auto* row : rows) {
    const model::CallsiteCauses& c = row->causes;
    const double total =
        c.computation_s + c.latency_s + c.bandwidth_s + c.propagated_s + c.unexplained_s;
    wait += total;
    callsites.push_back({{"function", row->function},
                         {"location", callsite_location(*row)},
                         {"wait_s", total},
                         {"wait_states", c.wait_states},
                         {"computation_s", c.computation_s},
                         {"latency_s", c.latency_s},
                         {"bandwidth_s", c.bandwidth_s},
                         {"propagated_s", c.propagated_s},
                         {"unexplained_s", c.unexplained_s},
                         {"propagated_from", nlohmann::json::array()},
                         {"delay_places", nlohmann::json::array()},
                         {"delay_ranks", nlohmann::json::array()}});
  }
  return {{"source", "windows"},
          {"wait_s", wait},
          {"wait_states", wait_states},
          {"callsites", std::move(callsites)},
          {"delays", nlohmann::json::array()}};
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
