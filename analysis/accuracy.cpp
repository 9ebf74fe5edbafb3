#include "accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "model/function_catalog.hpp"
#include "model/json_fields.hpp"

namespace mpidle::analysis {
namespace {

std::string reason_for(const AccuracyRow& r) {
  const double diff = r.minimum_local_s - r.trace_s;
  const double tolerance = std::max(0.05 * std::max(r.minimum_local_s, r.trace_s), 20e-6);
  if (std::abs(diff) <= tolerance) return "agree";
  if (diff < 0 && std::abs(r.minimum_global_s - r.trace_s) < std::abs(diff)) {
    return "static imbalance: this rank always waits, so its own minimum already holds waiting "
           "(the global minimum is closer)";
  }
  if (diff > 0 && model::is_completion(r.function)) {
    return "non-blocking: the minimum method counts time a request needed to complete, overlap "
           "included, not only a late partner";
  }
  if (diff > 0) return "jitter: time above the minimum that no late partner explains";
  return "waiting the minimum method cannot see at this callsite";
}

}  // namespace

double agreement(double estimate, double exact) {
  const double scale = std::max(std::abs(estimate), std::abs(exact));
  return scale > 0 ? 1.0 - std::abs(estimate - exact) / scale : 1.0;
}

Accuracy compare_with_minimum_method(const model::Profile& profile, const model::Trace& trace,
                                     const WaitStates& waits) {
  std::map<std::pair<std::string, std::string>, AccuracyRow> rows;
  for (const auto& c : profile.callsites) {
    auto& row = rows[{c.function, model::innermost_location(c.frames)}];
    row.function = c.function;
    row.location = model::innermost_location(c.frames);
    row.robust_s += c.estimates.wait_s_robust;
    row.calibrated_s += c.estimates.wait_s_calibrated;
    row.minimum_local_s += c.estimates.wait_s_minimum;
    row.minimum_global_s += c.wait_s_global_min;
  }
  std::map<std::pair<std::string, std::string>, PatternSeconds> by_pattern;
  for (const auto& s : waits.sites) {
    const std::string function = trace.functions.at(s.function);
    const std::string location = s.callsite < trace.callsites.size()
                                     ? model::innermost_location(trace.callsites[s.callsite].frames)
                                     : "?";
    auto& row = rows[{function, location}];
    row.function = function;
    row.location = location;
    auto& patterns = by_pattern[{function, location}];
    for (std::size_t k = 0; k < kPatterns; ++k) {
      row.trace_s += s.total[k];
      patterns[k] += s.total[k];
    }
  }
  Accuracy out;
  for (auto& [key, row] : rows) {
    const auto& patterns = by_pattern[key];
    row.dominant =
        static_cast<Pattern>(std::max_element(patterns.begin(), patterns.end()) - patterns.begin());
    row.reason = reason_for(row);
    out.robust_s += row.robust_s;
    out.calibrated_s += row.calibrated_s;
    out.minimum_local_s += row.minimum_local_s;
    out.minimum_global_s += row.minimum_global_s;
    out.trace_s += row.trace_s;
    if (row.trace_s > 0) {
      const auto k = static_cast<std::size_t>(row.dominant);
      out.trace_by_pattern[k] += row.trace_s;
      out.local_by_pattern[k] += row.minimum_local_s;
      out.robust_by_pattern[k] += row.robust_s;
      out.calibrated_by_pattern[k] += row.calibrated_s;
    }
    out.rows.push_back(row);
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const auto& a, const auto& b) {
    return std::abs(a.minimum_local_s - a.trace_s) > std::abs(b.minimum_local_s - b.trace_s);
  });
  return out;
}

}  // namespace mpidle::analysis
