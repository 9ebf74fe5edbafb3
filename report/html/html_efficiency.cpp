#include "report/html/html_efficiency.hpp"

#include <algorithm>

#include "report/html/html_page.hpp"
#include "report/text/text_format.hpp"

namespace mpidle::report {
namespace {

using html::escape;

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

std::string cell(double value) {
  return format("<td class=\"num\" style=\"background:%s\">%.2f</td>", colour_of(value).c_str(),
                value);
}

}  // namespace

std::string regions_section(const std::vector<model::RegionRow>& regions,
                            const std::vector<double>& wait_s) {
  if (regions.empty()) return {};
  std::string out =
      "<section id=\"regions\"><h2>Regions</h2>\n<p>Code regions the program marked "
      "(mpidle_region_begin/end or MPI_Pcontrol); a region includes the regions nested in it. "
      "Wall is the longest time any rank spent inside; MPI and wait add up all ranks. The POP "
      "metrics are the region's own: useful time is time inside and outside MPI, the mean over "
      "every rank of the run.</p>\n<table><tr><th>region</th><th class=\"num\">visits</th>"
      "<th class=\"num\">wall</th><th class=\"num\">MPI</th><th class=\"num\">wait</th>"
      "<th class=\"num\">parallel</th><th class=\"num\">load balance</th>"
      "<th class=\"num\">communication</th></tr>\n";
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const model::RegionRow& r = regions[i];
    const auto slash = r.path.rfind('/');
    const std::string name = slash == std::string::npos ? r.path : r.path.substr(slash + 1);
    out += format("<tr data-region=\"%s\"><td style=\"padding-left:%dpx\" title=\"%s\">%s</td>",
                  escape(r.path).c_str(), 8 + 18 * (r.depth - 1), escape(r.path).c_str(),
                  escape(name).c_str());
    out += format(
        "<td class=\"num\">%llu</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
        "<td class=\"num\">%s</td>",
        static_cast<unsigned long long>(r.visits), seconds(r.wall_max_s).c_str(),
        seconds(r.mpi_s).c_str(), seconds(i < wait_s.size() ? wait_s[i] : 0).c_str());
    out += cell(r.efficiency.parallel) + cell(r.efficiency.load_balance) +
           cell(r.efficiency.communication) + "</tr>\n";
  }
  return out + "</table></section>\n";
}

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
