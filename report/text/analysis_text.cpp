#include "report/text/analysis_text.hpp"

#include "report/runs/run_analysis.hpp"
#include "report/text/text_format.hpp"

namespace mpidle::report {

namespace {

// A count: get_ref throws a type error for anything but an unsigned integer, where
// get<unsigned long long>() converts any number (8.2e88 would not convert).
unsigned long long count_of(const nlohmann::json& a, const char* key) {
  return a.at(key).get_ref<const nlohmann::json::number_unsigned_t&>();
}

double share(const nlohmann::json& row, const char* key) {
  const double wait = row.at("wait_s").get<double>();
  return wait > 0 ? row.at(key).get<double>() / wait : 0.0;
}

}  // namespace

// Why each callsite waited, and the delays that cost most (docs/analysis-format.md).
std::string root_causes_text(const nlohmann::json& r, std::size_t top) {
  const bool windows = r.value("source", "") == "windows";
  std::string out =
      windows ? format(
                    "\nwhy it waited (delay analysis of the trace windows, %llu wait states): "
                    "each callsite's wait split as its windowed waiting was, caused by "
                    "computation, communication or waiting propagated from other callsites\n",
                    count_of(r, "wait_states"))
              : format(
                    "\nwhy it waited (delay analysis): %.6f s of waiting, caused by computation, "
                    "communication or waiting propagated from other callsites\n",
                    r.at("wait_s").get<double>());
  std::size_t n = 0;
  for (const auto& s : r.at("callsites")) {
    if (n++ == top) break;
    out += format(
        "  %-16s %-36s %.6f s: computation %.0f%%, latency %.0f%%, bandwidth %.0f%%, "
        "propagated %.0f%%",
        s.at("function").get<std::string>().c_str(), s.at("location").get<std::string>().c_str(),
        s.at("wait_s").get<double>(), 100 * share(s, "computation_s"), 100 * share(s, "latency_s"),
        100 * share(s, "bandwidth_s"), 100 * share(s, "propagated_s"));
    const std::string where = where_caused(causes_of(s));
    if (!where.empty()) out += format(" (%s)", where.c_str());
    if (share(s, "unexplained_s") > 0.005)
      out += format(", unexplained %.0f%%", 100 * share(s, "unexplained_s"));
    out += "\n";
  }
  if (r.at("delays").empty()) return out;
  out += "  delays by the waiting they caused (long-term: with what they propagated)\n";
  n = 0;
  for (const auto& d : r.at("delays")) {
    if (n++ == top) break;
    const std::string kind = d.at("kind").get<std::string>();
    const auto& ranks = d.at("top_ranks");
    const std::string most =
        ranks.empty() ? "" : format(", most on rank %lld", ranks[0].at("rank").get<long long>());
    out += format("  %-11s %s %-16s %-36s short-term %.6f s, long-term %.6f s%s\n", kind.c_str(),
                  kind == "computation" ? "before" : "in    ",
                  d.at("function").get<std::string>().c_str(),
                  d.at("location").get<std::string>().c_str(), d.at("short_term_s").get<double>(),
                  d.at("long_term_s").get<double>(), most.c_str());
  }
  return out;
}

// at() throughout: a missing key throws (the caller reports the file as
// incomplete), where operator[] on a const object reads past its end.
std::string analysis_text(const nlohmann::json& a, std::size_t top) {
  std::string out = format(
      "wait states from the synchronized trace (%llu events, %llu messages, "
      "%llu collectives)\n",
      count_of(a, "events"), count_of(a, "messages"), count_of(a, "collectives"));
  for (const auto& [key, value] : a.at("totals").items()) {
    out += format("  %-16s %12.6f s\n", key.c_str(), value.get<double>());
  }
  out += "\ncallsites by waiting\n";
  std::size_t n = 0;
  for (const auto& s : a.at("callsites")) {
    if (n++ == top) break;
    std::string patterns;
    for (const auto& [key, value] : s.at("patterns").items()) {
      if (value.get<double>() > 0)
        patterns += format(" %s %.6f s", key.c_str(), value.get<double>());
    }
    out += format("  %-16s %-36s %.6f s:%s\n", s.at("function").get<std::string>().c_str(),
                  s.at("location").get<std::string>().c_str(), s.at("wait_s").get<double>(),
                  patterns.c_str());
  }
  if (a.contains("efficiency")) {
    const auto& e = a.at("efficiency");
    out += format(
        "\nefficiency (POP): parallel %.2f = load balance %.2f x communication %.2f, and "
        "communication = serialization %.2f x transfer %.2f (replayed on an ideal network: "
        "%.6f s of %.6f s)\n",
        e.at("parallel").get<double>(), e.at("load_balance").get<double>(),
        e.at("communication").get<double>(), e.at("serialization").get<double>(),
        e.at("transfer").get<double>(), e.at("ideal_runtime_s").get<double>(),
        e.at("runtime_s").get<double>());
  }
  if (a.contains("root_causes")) out += root_causes_text(a.at("root_causes"), top);
  const auto& acc = a.at("accuracy");
  // Analyses written before the robust estimate have no robust columns.
  const auto number = [](const nlohmann::json& j, const char* key) {
    return j.contains(key) ? j.at(key).get<double>() : 0.0;
  };
  out += format(
      "\naccuracy of the profile's wait estimates: trace %.6f s, calibrated %.6f s (agreement "
      "%.0f%%), robust %.6f s (agreement %.0f%%), local minimum %.6f s (agreement %.0f%%), "
      "global minimum %.6f s (agreement %.0f%%)\n",
      acc.at("trace_s").get<double>(), number(acc, "calibrated_s"),
      100 * number(acc, "agreement_calibrated"), number(acc, "robust_s"),
      100 * number(acc, "agreement_robust"), acc.at("minimum_local_s").get<double>(),
      100 * acc.at("agreement_local").get<double>(), acc.at("minimum_global_s").get<double>(),
      100 * acc.at("agreement_global").get<double>());
  for (const auto& [key, p] : acc.at("by_pattern").items()) {
    out += format(
        "  %-16s trace %.6f s, robust %.6f s (agreement %.0f%%), local minimum %.6f s "
        "(agreement %.0f%%)\n",
        key.c_str(), p.at("trace_s").get<double>(), number(p, "robust_s"),
        100 * number(p, "agreement_robust"), p.at("minimum_local_s").get<double>(),
        100 * p.at("agreement").get<double>());
  }
  out += format("  %-16s %-30s %11s %11s %11s %11s %11s %11s  %s\n", "function", "location",
                "calibrated", "robust", "local min", "global min", "trace", "difference", "reason");
  n = 0;
  for (const auto& r : acc.at("callsites")) {
    if (n++ == top) break;
    out += format("  %-16s %-30s %11.6f %11.6f %11.6f %11.6f %11.6f %+11.6f  %s\n",
                  r.at("function").get<std::string>().c_str(),
                  r.at("location").get<std::string>().c_str(), number(r, "calibrated_s"),
                  number(r, "robust_s"), r.at("minimum_local_s").get<double>(),
                  r.at("minimum_global_s").get<double>(), r.at("trace_s").get<double>(),
                  r.at("difference_s").get<double>(), r.at("reason").get<std::string>().c_str());
  }
  return out;
}

}  // namespace mpidle::report
