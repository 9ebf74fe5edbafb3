#include "analysis_text.hpp"

#include "text_format.hpp"

namespace mpidle::report {

std::string analysis_text(const nlohmann::json& a, std::size_t top) {
  std::string out = format(
      "wait states from the synchronized trace (%llu events, %llu messages, "
      "%llu collectives)\n",
      a["events"].get<unsigned long long>(), a["messages"].get<unsigned long long>(),
      a["collectives"].get<unsigned long long>());
  for (const auto& [key, value] : a["totals"].items()) {
    out += format("  %-16s %12.6f s\n", key.c_str(), value.get<double>());
  }
  out += "\ncallsites by waiting\n";
  std::size_t n = 0;
  for (const auto& s : a["callsites"]) {
    if (n++ == top) break;
    std::string patterns;
    for (const auto& [key, value] : s["patterns"].items()) {
      if (value.get<double>() > 0)
        patterns += format(" %s %.6f s", key.c_str(), value.get<double>());
    }
    out += format("  %-16s %-36s %.6f s:%s\n", s["function"].get<std::string>().c_str(),
                  s["location"].get<std::string>().c_str(), s["wait_s"].get<double>(),
                  patterns.c_str());
  }
  const auto& acc = a["accuracy"];
  out += format(
      "\naccuracy of the minimum method: trace %.6f s, local minimum %.6f s (agreement "
      "%.0f%%), global minimum %.6f s (agreement %.0f%%)\n",
      acc["trace_s"].get<double>(), acc["minimum_local_s"].get<double>(),
      100 * acc["agreement_local"].get<double>(), acc["minimum_global_s"].get<double>(),
      100 * acc["agreement_global"].get<double>());
  for (const auto& [key, p] : acc["by_pattern"].items()) {
    out += format("  %-16s trace %.6f s, local minimum %.6f s, agreement %.0f%%\n", key.c_str(),
                  p["trace_s"].get<double>(), p["minimum_local_s"].get<double>(),
                  100 * p["agreement"].get<double>());
  }
  out += format("  %-16s %-30s %11s %11s %11s %11s  %s\n", "function", "location", "local min",
                "global min", "trace", "difference", "reason");
  n = 0;
  for (const auto& r : acc["callsites"]) {
    if (n++ == top) break;
    out += format("  %-16s %-30s %11.6f %11.6f %11.6f %+11.6f  %s\n",
                  r["function"].get<std::string>().c_str(),
                  r["location"].get<std::string>().c_str(), r["minimum_local_s"].get<double>(),
                  r["minimum_global_s"].get<double>(), r["trace_s"].get<double>(),
                  r["difference_s"].get<double>(), r["reason"].get<std::string>().c_str());
  }
  return out;
}

}  // namespace mpidle::report
