#include "analysis_output.hpp"

#include <cstdarg>
#include <cstdio>

#include "model/json_fields.hpp"

namespace mpidle::analysis {
namespace {

using nlohmann::json;

json patterns_json(const PatternSeconds& s) {
  json out = json::object();
  for (std::size_t k = 0; k < kPatterns; ++k) out[pattern_key(static_cast<Pattern>(k))] = s[k];
  return out;
}

std::string line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

}  // namespace

json analysis_json(const model::Trace& trace, const WaitStates& waits, const Accuracy& accuracy) {
  json sites = json::array();
  for (const auto& s : waits.sites) {
    const auto& frames = s.callsite < trace.callsites.size() ? trace.callsites[s.callsite].frames
                                                             : std::vector<model::Frame>{};
    json by_rank = json::array();
    for (std::size_t r = 0; r < s.by_rank.size(); ++r) {
      double sum = 0;
      for (double v : s.by_rank[r]) sum += v;
      if (sum == 0) continue;
      json row = patterns_json(s.by_rank[r]);
      row["rank"] = trace.ranks[r].rank;
      by_rank.push_back(std::move(row));
    }
    double sum = 0;
    for (double v : s.total) sum += v;
    sites.push_back({{"function", trace.functions.at(s.function)},
                     {"location", model::innermost_location(frames)},
                     {"frames", model::frames_json(model::Callsite{frames})},
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
        {"agreement", agreement(accuracy.local_by_pattern[k], accuracy.trace_by_pattern[k])}};
  }
  return {{"schema", kAnalysisSchema},
          {"clock", "controlled logical clock"},
          {"events", waits.events},
          {"messages", waits.messages},
          {"collectives", waits.collectives},
          {"totals", patterns_json(waits.totals)},
          {"callsites", std::move(sites)},
          {"accuracy",
           {{"minimum_local_s", accuracy.minimum_local_s},
            {"minimum_global_s", accuracy.minimum_global_s},
            {"trace_s", accuracy.trace_s},
            {"agreement_local", agreement(accuracy.minimum_local_s, accuracy.trace_s)},
            {"agreement_global", agreement(accuracy.minimum_global_s, accuracy.trace_s)},
            {"by_pattern", std::move(per_pattern)},
            {"callsites", std::move(rows)}}}};
}

std::string analysis_text(const json& a, std::size_t top) {
  std::string out = line(
      "wait states from the synchronized trace (%llu events, %llu messages, "
      "%llu collectives)\n",
      a["events"].get<unsigned long long>(), a["messages"].get<unsigned long long>(),
      a["collectives"].get<unsigned long long>());
  for (const auto& [key, value] : a["totals"].items()) {
    out += line("  %-16s %12.6f s\n", key.c_str(), value.get<double>());
  }
  out += "\ncallsites by waiting\n";
  std::size_t n = 0;
  for (const auto& s : a["callsites"]) {
    if (n++ == top) break;
    std::string patterns;
    for (const auto& [key, value] : s["patterns"].items()) {
      if (value.get<double>() > 0) patterns += line(" %s %.6f s", key.c_str(), value.get<double>());
    }
    out +=
        line("  %-16s %-36s %.6f s:%s\n", s["function"].get<std::string>().c_str(),
             s["location"].get<std::string>().c_str(), s["wait_s"].get<double>(), patterns.c_str());
  }
  const auto& acc = a["accuracy"];
  out += line(
      "\naccuracy of the minimum method: trace %.6f s, local minimum %.6f s (agreement "
      "%.0f%%), global minimum %.6f s (agreement %.0f%%)\n",
      acc["trace_s"].get<double>(), acc["minimum_local_s"].get<double>(),
      100 * acc["agreement_local"].get<double>(), acc["minimum_global_s"].get<double>(),
      100 * acc["agreement_global"].get<double>());
  for (const auto& [key, p] : acc["by_pattern"].items()) {
    out += line("  %-16s trace %.6f s, local minimum %.6f s, agreement %.0f%%\n", key.c_str(),
                p["trace_s"].get<double>(), p["minimum_local_s"].get<double>(),
                100 * p["agreement"].get<double>());
  }
  out += line("  %-16s %-30s %11s %11s %11s %11s  %s\n", "function", "location", "local min",
              "global min", "trace", "difference", "reason");
  n = 0;
  for (const auto& r : acc["callsites"]) {
    if (n++ == top) break;
    out += line("  %-16s %-30s %11.6f %11.6f %11.6f %+11.6f  %s\n",
                r["function"].get<std::string>().c_str(), r["location"].get<std::string>().c_str(),
                r["minimum_local_s"].get<double>(), r["minimum_global_s"].get<double>(),
                r["trace_s"].get<double>(), r["difference_s"].get<double>(),
                r["reason"].get<std::string>().c_str());
  }
  return out;
}

}  // namespace mpidle::analysis
