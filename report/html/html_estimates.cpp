#include "report/html/html_estimates.hpp"

#include <algorithm>

#include "report/html/html_page.hpp"
#include "report/runs/run_analysis.hpp"
#include "report/text/text_format.hpp"
#include "report/text/text_report.hpp"

namespace mpidle::report {
namespace {

using html::escape;

constexpr std::size_t kMaxHistograms = 16;

std::string svg_histogram(const model::DurationHistogram& h) {
  if (h.empty()) return "<p>no timed calls</p>";
  const std::int32_t first = h.front().bin, last = h.back().bin;
  std::uint64_t peak = 1;
  for (const auto& b : h) peak = std::max(peak, b.count);
  constexpr int kBar = 18, kHeight = 60, kTop = 4;
  const int bars = last - first + 1;
  const int width = bars * kBar + 2;
  std::string out = format("<svg class=\"durations\" width=\"%d\" height=\"%d\" role=\"img\">",
                           width, kHeight + 30);
  for (const auto& b : h) {
    const int x = (b.bin - first) * kBar + 1;
    const int height = std::max(
        1, static_cast<int>(kHeight * static_cast<double>(b.count) / static_cast<double>(peak)));
    out += format(
        "<rect class=\"bin\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" data-calls=\"%llu\">"
        "<title>%s to %s: %llu calls, %s</title></rect>",
        x, kTop + kHeight - height, kBar - 2, height, static_cast<unsigned long long>(b.count),
        seconds(model::duration_bin_lower_s(b.bin)).c_str(),
        seconds(model::duration_bin_lower_s(b.bin + 1)).c_str(),
        static_cast<unsigned long long>(b.count), seconds(b.sum_s).c_str());
  }
  // Edge labels every fourth bin, so they do not overlap.
  for (std::int32_t bin = first; bin <= last + 1; bin += 4) {
    out += format("<text x=\"%d\" y=\"%d\">%s</text>", (bin - first) * kBar, kTop + kHeight + 14,
                  seconds(model::duration_bin_lower_s(bin)).c_str());
  }
  return out + "</svg>";
}

}  // namespace

std::string durations_section(const std::vector<const model::CallsiteRow*>& top) {
  std::string out =
      "<section id=\"durations\"><h2>Call durations</h2>\n"
      "<p>Calls per duration, by power of two, over all ranks: the calls that did not wait "
      "form the lowest cluster, whose mean is the robust baseline; waiting spreads the others "
      "to the right.</p>\n";
  for (std::size_t i = 0; i < top.size() && i < kMaxHistograms; ++i) {
    const auto& c = *top[i];
    out += format("<figure data-function=\"%s\"><figcaption>#%zu %s at %s</figcaption>",
                  escape(c.function).c_str(), i + 1, escape(c.function).c_str(),
                  escape(callsite_location(c)).c_str());
    out += svg_histogram(c.durations) + "</figure>\n";
  }
  return out + "</section>\n";
}

std::string estimates_section(const std::vector<const model::CallsiteRow*>& top,
                              const nlohmann::json& analysis) {
  // The trace's exact wait per (function, location), where the run has an analysis.
  const auto exact = exact_waits_of(analysis);
  const bool traced = exact.has_value();
  std::string out =
      "<section id=\"estimates\"><h2>Wait estimates</h2>\n<p>Robust: time above the cost of a "
      "call that did not wait, in calls that can wait, less the transfers that completion calls "
      "held. Minimum: time above each rank's fastest call (the minimum method)." +
      std::string(traced ? " Trace: the exact wait of the trace analysis." : "") +
      "</p>\n<table><tr><th>#</th><th>function</th><th>location</th><th class=\"num\">time</th>"
      "<th class=\"num\">robust</th><th class=\"num\">minimum</th><th class=\"num\">global "
      "minimum</th>" +
      std::string(traced ? "<th class=\"num\">trace</th>" : "") +
      "<th class=\"num\">transfer</th><th class=\"num\">variation</th></tr>\n";
  for (std::size_t i = 0; i < top.size(); ++i) {
    const auto& c = *top[i];
    const auto& e = c.estimates;
    std::string trace_cell;
    if (traced) {
      const auto it = exact->by_site.find({c.function, callsite_location(c)});
      trace_cell = "<td class=\"num\">" +
                   (it != exact->by_site.end() ? seconds(it->second) : std::string("-")) + "</td>";
    }
    out += format(
        "<tr data-function=\"%s\" data-robust-s=\"%.9g\" data-minimum-s=\"%.9g\"><td>%zu</td>"
        "<td>%s</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
        "<td class=\"num\">%s</td><td class=\"num\">%s</td>%s<td class=\"num\">%s</td>"
        "<td class=\"num\">%s</td></tr>\n",
        escape(c.function).c_str(), e.wait_s_robust, e.wait_s_minimum, i + 1,
        escape(c.function).c_str(), escape(callsite_location(c)).c_str(), seconds(c.time_s).c_str(),
        seconds(e.wait_s_robust).c_str(), seconds(e.wait_s_minimum).c_str(),
        seconds(c.wait_s_global_min).c_str(), trace_cell.c_str(), seconds(e.transfer_s).c_str(),
        seconds(e.variation_s).c_str());
  }
  return out + "</table></section>\n";
}

}  // namespace mpidle::report
