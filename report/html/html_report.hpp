#pragma once
// The HTML forms: `mpidle report RUN --html` (one self-contained page with the
// run, per-rank time bars, top callsites by wait, a rank × callsite heatmap of
// wait, the functions table, and for trace runs the loop summary and clock
// synchronization) and `mpidle compare A B --html`. Pages stay readable at
// thousands of ranks: ranks are binned into at most kMaxRankRows rows.

#include <string>

#include <nlohmann/json.hpp>

#include "model/profile_reader.hpp"
#include "report/text/compare.hpp"
#include "report/text/text_report.hpp"

namespace mpidle::report {

inline constexpr std::size_t kMaxRankRows = 64;

// What the run directory adds to its profile's page.
struct HtmlExtras {
  std::string summary_text;   // the loop summary as `mpidle summary` prints it ("" without)
  std::string loop_timeline;  // loop_timeline_section() ("" without)
  nlohmann::json prediction;  // the run's prediction.json (null without)
  nlohmann::json analysis;    // the run's analysis.json (null without)
};

std::string html_report(const model::Profile& profile, const ReportOptions& options,
                        const HtmlExtras& extras);
std::string html_comparison(const Comparison& comparison, std::size_t top);

}  // namespace mpidle::report
