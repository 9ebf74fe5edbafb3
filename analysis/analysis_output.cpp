#include "analysis_output.hpp"

#include <fstream>
#include <stdexcept>

#include "model/json_fields.hpp"
#include "model/run_info.hpp"

namespace mpidle::analysis {
namespace {

using nlohmann::json;

json patterns_json(const PatternSeconds& s) {
  json out = json::object();
  for (std::size_t k = 0; k < kPatterns; ++k) out[pattern_key(static_cast<Pattern>(k))] = s[k];
  return out;
}

}  // namespace

json analysis_json(const model::Trace& trace, const WaitStates& waits, const Accuracy& accuracy) {
  json sites = json::array();
  for (const auto& s : waits.sites) {
    const auto& frames = s.callsite < trace.callsites.size() ? trace.callsites[s.callsite].frames
                                                             : std::vector<model::Frame>{};
    json by_rank = json::array();
    for (const auto& [position, seconds] : s.by_rank) {
      double sum = 0;
      for (double v : seconds) sum += v;
      if (sum == 0) continue;
      json row = patterns_json(seconds);
      row["rank"] = trace.ranks.at(position).rank;
      by_rank.push_back(std::move(row));
    }
    double sum = 0;
    for (double v : s.total) sum += v;
    sites.push_back({{"function", trace.functions.at(s.function)},
                     {"location", model::innermost_location(frames)},
                     {"frames", model::frames_json(model::Callsite{frames, {}})},
                     {"wait_s", sum},
                     {"patterns", patterns_json(s.total)},
                     {"by_rank", std::move(by_rank)}});
  }
  std::stable_sort(sites.begin(), sites.end(), [](const json& a, const json& b) {
    return a["wait_s"].get<double>() > b["wait_s"].get<double>();
  });
  json rows = json::array();
  for (const auto& r : accuracy.rows) {
    rows.push_back({{"function", r.function},
                    {"location", r.location},
                    {"robust_s", r.robust_s},
                    {"minimum_local_s", r.minimum_local_s},
                    {"minimum_global_s", r.minimum_global_s},
                    {"trace_s", r.trace_s},
                    {"difference_s", r.minimum_local_s - r.trace_s},
                    {"pattern", pattern_key(r.dominant)},
                    {"reason", r.reason}});
  }
  json per_pattern = json::object();
  for (std::size_t k = 0; k < kPatterns; ++k) {
    if (accuracy.trace_by_pattern[k] == 0) continue;
    per_pattern[pattern_key(static_cast<Pattern>(k))] = {
        {"trace_s", accuracy.trace_by_pattern[k]},
        {"minimum_local_s", accuracy.local_by_pattern[k]},
        {"agreement", agreement(accuracy.local_by_pattern[k], accuracy.trace_by_pattern[k])},
        {"robust_s", accuracy.robust_by_pattern[k]},
        {"agreement_robust",
         agreement(accuracy.robust_by_pattern[k], accuracy.trace_by_pattern[k])}};
  }
  return {{"schema", kAnalysisSchema},
          {"producer", model::mpidle_producer()},
          {"clock", "controlled logical clock"},
          {"events", waits.events},
          {"messages", waits.messages},
          {"collectives", waits.collectives},
          {"totals", patterns_json(waits.totals)},
          {"callsites", std::move(sites)},
          {"accuracy",
           {{"robust_s", accuracy.robust_s},
            {"agreement_robust", agreement(accuracy.robust_s, accuracy.trace_s)},
            {"minimum_local_s", accuracy.minimum_local_s},
            {"minimum_global_s", accuracy.minimum_global_s},
            {"trace_s", accuracy.trace_s},
            {"agreement_local", agreement(accuracy.minimum_local_s, accuracy.trace_s)},
            {"agreement_global", agreement(accuracy.minimum_global_s, accuracy.trace_s)},
            {"by_pattern", std::move(per_pattern)},
            {"callsites", std::move(rows)}}}};
}

json write_analysis(const std::filesystem::path& dir, const model::Profile& profile,
                    const model::Trace& trace, const WaitStates& waits,
                    const model::PopEfficiency* efficiency) {
  const auto accuracy = compare_with_minimum_method(profile, trace, waits);
  json doc = analysis_json(trace, waits, accuracy);
  if (efficiency != nullptr && efficiency->ideal_runtime_s) {
    doc["efficiency"] = {{"runtime_s", efficiency->runtime_s},
                         {"useful_mean_s", efficiency->useful_mean_s},
                         {"useful_max_s", efficiency->useful_max_s},
                         {"load_balance", efficiency->load_balance},
                         {"communication", efficiency->communication},
                         {"parallel", efficiency->parallel},
                         {"ideal_runtime_s", *efficiency->ideal_runtime_s},
                         {"serialization", *efficiency->serialization},
                         {"transfer", *efficiency->transfer}};
  }
  const std::filesystem::path out = dir / kAnalysisFileName;
  std::ofstream file(out);
  file << doc.dump(1) << '\n';
  if (!file) throw std::runtime_error("cannot write " + out.string());
  return doc;
}

}  // namespace mpidle::analysis
