#include "html_efficiency.hpp"

#include <algorithm>

#include "text_format.hpp"

namespace mpidle::report {
namespace {

// Hue 0 (red) at 0.5 and below to 120 (green) at 1.
std::string colour_of(double value) {
  const double hue = std::clamp((value - 0.5) / 0.5, 0.0, 1.0) * 120.0;
  return format("hsl(%.0f,70%%,72%%)", hue);
}

std::string row(const char* name, const char* definition, double value, int depth) {
  return format(
      "<tr data-metric=\"%s\" data-value=\"%.6f\"><td style=\"padding-left:%dpx\">%s</td>"
      "<td class=\"num\" style=\"background:%s\">%.2f</td><td>%s</td></tr>\n",
      name, value, 8 + 18 * depth, name, colour_of(value).c_str(), value, definition);
}

}  // namespace

std::string efficiency_section(const model::PopEfficiency& e) {
  std::string out =
      "<section id=\"efficiency\"><h2>Efficiency (POP metrics)</h2>\n<p>Useful time is each "
      "rank's time outside MPI; runtime is the longest rank's wall time, " +
      seconds(e.runtime_s) +
      ".</p>\n<table><tr><th>metric</th><th class=\"num\">value</th>"
      "<th>definition</th></tr>\n";
  out += row("parallel efficiency", "load balance &times; communication efficiency", e.parallel, 0);
  out += row("load balance", "mean(useful) / max(useful)", e.load_balance, 1);
  out += row("communication efficiency", "max(useful) / runtime", e.communication, 1);
  if (e.serialization && e.transfer) {
    out += row("serialization efficiency", "max(useful) / runtime on an ideal network",
               *e.serialization, 2);
    out += row("transfer efficiency", "runtime on an ideal network / runtime", *e.transfer, 2);
  }
  return out + "</table></section>\n";
}

}  // namespace mpidle::report
