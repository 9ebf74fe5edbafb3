#pragma once
// The text forms of a profile: the full report and the five-line run summary.

#include <string>
#include <vector>

#include "model/profile_reader.hpp"

namespace mpidle::report {

enum class Estimate { local, global };

struct ReportOptions {
  std::size_t top = 10;
  Estimate estimate = Estimate::local;
};

Estimate estimate_of(const model::Profile& profile);
// The wait a rank, function or callsite row shows under the chosen estimate.
template <typename Row>
double wait_of(const Row& row, Estimate e) {
  return e == Estimate::global ? row.wait_s_global_min : row.wait_s;
}
// Every callsite, most waiting first.
std::vector<const model::CallsiteRow*> callsites_by_wait(const model::Profile& p, Estimate e);
std::string format_report(const model::Profile& profile, const ReportOptions& options);
std::string format_summary(const model::Profile& profile, const std::string& where);
// "file.c:42 (main)" where debug information exists, else "main+0x1a2 (app)".
std::string callsite_location(const model::CallsiteRow& callsite);

// "N trace records were lost during the run ...", or "" when none were: every
// command that reads the trace says it, as do the text and HTML reports.
std::string lost_records_text(const model::Profile& profile);

}  // namespace mpidle::report
