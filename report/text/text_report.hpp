#pragma once
// The text forms of a profile: the full report and the five-line run summary.

#include <optional>
#include <string>
#include <vector>

#include "model/profile_reader.hpp"

namespace mpidle::report {

// docs/profile-format.md, "Two wait estimates", and docs/calibration.md:
// `calibrated` (time above a call's cost as the exact analysis of the trace windows
// measured it, robust for keys they did not calibrate; the default), `robust` (time
// above the cost of a call that did not wait), `local` (the minimum method, each
// rank's own minima), `global` (the minima over all ranks).
enum class Estimate { calibrated, robust, local, global };

struct ReportOptions {
  std::size_t top = 10;
  Estimate estimate = Estimate::robust;
};

Estimate estimate_of(const model::Profile& profile);
// "calibrated", "robust", "minimum" (also "local") or "global"; nullopt for anything else.
std::optional<Estimate> parse_estimate(const std::string& name);
const char* estimate_name(Estimate e);  // "calibrated", "robust", "minimum", "global"
// "robust estimate", "calibrated (3 windows)": the estimate a run's summary names.
std::string estimate_label(const model::Profile& p, Estimate e);
// What the estimate subtracts, for a report's header line.
std::string estimate_description(Estimate e);
// The wait a rank, function or callsite row shows under the chosen estimate.
template <typename Row>
double wait_of(const Row& row, Estimate e) {
  switch (e) {
    case Estimate::global:
      return row.wait_s_global_min;
    case Estimate::local:
      return row.estimates.wait_s_minimum;
    case Estimate::calibrated:
      return row.estimates.wait_s_calibrated;
    case Estimate::robust:
      break;
  }
  return row.estimates.wait_s_robust;
}
// The code regions as a nested table (empty when the run marked none).
std::string regions_text(const model::Profile& p, Estimate e);
// Every callsite, most waiting first.
std::vector<const model::CallsiteRow*> callsites_by_wait(const model::Profile& p, Estimate e);
std::string format_report(const model::Profile& profile, const ReportOptions& options);
std::string format_summary(const model::Profile& profile, const std::string& where);
// "  efficiency (POP): parallel 0.62 = load balance 0.75 x communication 0.83\n"
std::string efficiency_line(const model::PopEfficiency& e);
// "file.c:42 (main)" where debug information exists, else "main+0x1a2 (app)".
std::string callsite_location(const model::CallsiteRow& callsite);

// "N trace records were lost during the run ...", or "" when none were: every
// command that reads the trace says it, as do the text and HTML reports.
std::string lost_records_text(const model::Profile& profile);

}  // namespace mpidle::report
