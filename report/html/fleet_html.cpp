#include "report/html/fleet_html.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/html/html_page.hpp"

namespace mpidle::report {
namespace {

std::string format(const char* pattern, double a, double b = 0, double c = 0, double d = 0) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, a, b, c, d);
  return text;
}

// Every chart fits a page (the style sheet's 1,200 px less its margins) at any number
// of rows or columns.
constexpr int kChartWidth = 960;

// A number with three significant digits at most, never in exponent form.
std::string short_number(double v) {
  const double a = std::abs(v);
  return format(a == 0 ? "0" : a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%.0f", v);
}

// The unit core time is shown in, for a largest value of `hours`: core-seconds under
// a core-hour (three small jobs read "49.4 core-seconds", not "0.0 core-hours"),
// core-hours, then thousands of them.
struct CoreUnit {
  double per_hour;
  const char* name;
};
CoreUnit core_unit(double hours) {
  if (hours < 1) return {3600, "core-seconds"};
  if (hours < 1e4) return {1, "core-hours"};
  return {1e-3, "k core-hours"};
}
std::string core_time(double hours) {
  const CoreUnit u = core_unit(hours);
  return short_number(hours * u.per_hour) + " " + u.name;
}

// `text` cut to `most` characters (an ellipsis last), so that a label stays in its
// column; the whole text goes in a tooltip.
std::string fitted(const std::string& text, std::size_t most) {
  if (text.size() <= most) return html::escape(text);
  return html::escape(text.substr(0, most - 1)) + "&#8230;";
}

// Horizontal bars of core time, split into computing (not waiting) and waiting, each
// with its total and wait share at the right, inside the chart.
std::string hours_bars(const nlohmann::json& rows, const char* key) {
  constexpr int kLabel = 176, kValue = 236, kRow = 18;
  constexpr int kWidth = kChartWidth - kLabel - kValue;
  double most = 0;
  for (const auto& r : rows) most = std::max(most, r["core_hours"].get<double>());
  std::string out = "<svg width=\"" + std::to_string(kChartWidth) + "\" height=\"" +
                    std::to_string(static_cast<int>(rows.size()) * kRow + 4) + "\" role=\"img\">\n";
  int y = 2;
  for (const auto& r : rows) {
    const double total = r["core_hours"].get<double>();
    const double wait = std::min(total, r["wait_core_hours"].get<double>());
    const double scale = most > 0 ? kWidth / most : 0;
    const std::string label = r[key].get<std::string>();
    out += "<g class=\"bar\" data-name=\"" + html::escape(label) + "\" data-core-hours=\"" +
           format("%.6g", total) + "\" data-wait-core-hours=\"" + format("%.6g", wait) + "\">";
    out += "<text x=\"0\" y=\"" + std::to_string(y + 12) + "\"><title>" + html::escape(label) +
           "</title>" + fitted(label, 28) + "</text>";
    out += "<rect class=\"compute\" x=\"" + std::to_string(kLabel) + "\" y=\"" + std::to_string(y) +
           "\" width=\"" + format("%.1f", (total - wait) * scale) + "\" height=\"14\"><title>" +
           html::escape(core_time(total - wait)) + " not waiting</title></rect>";
    out += "<rect class=\"wait\" x=\"" + format("%.1f", kLabel + (total - wait) * scale) +
           "\" y=\"" + std::to_string(y) + "\" width=\"" + format("%.1f", wait * scale) +
           "\" height=\"14\"><title>" + html::escape(core_time(wait)) +
           " waiting in MPI</title></rect>";
    out += "<text class=\"value\" x=\"" + std::to_string(kChartWidth - 2) + "\" y=\"" +
           std::to_string(y + 12) + "\" text-anchor=\"end\">" + html::escape(core_time(total)) +
           format(", %.1f%% waiting", 100 * r["wait_share"].get<double>()) + "</text></g>\n";
    y += kRow;
  }
  return out + "</svg>\n";
}

// How a column chart's values read on its axis: `scale` times the value, in `unit`.
struct ValueAxis {
  double scale = 1;
  std::string unit;
};

// Vertical columns of `value_key` per row, labelled by `label_key`, with a value axis
// (ticks, their values and the unit) at the left. However many rows, the chart
// keeps its width: columns narrow, and only every k-th is labelled.
std::string columns(const nlohmann::json& rows, const char* label_key, const char* value_key,
                    const char* css_class, const ValueAxis& axis) {
  constexpr int kAxis = 64, kRight = 44, kHeight = 160, kTop = 8, kLabels = 74;
  constexpr double kPlot = kChartWidth - kAxis - kRight;
  const std::size_t n = std::max<std::size_t>(1, rows.size());
  const double column = std::min(22.0, kPlot / static_cast<double>(n));
  const std::size_t every = std::max<std::size_t>(1, static_cast<std::size_t>(14 / column + 0.999));
  double most = 0;
  for (const auto& r : rows) most = std::max(most, r[value_key].get<double>() * axis.scale);
  const auto ticks = html::axis_ticks(most, 4);
  const double top = std::max(most, ticks.back());
  const auto y_of = [&](double v) { return kTop + kHeight - (top > 0 ? v / top * kHeight : 0); };
  std::string out =
      "<svg width=\"" + format("%.0f", kAxis + column * static_cast<double>(n) + kRight) +
      "\" height=\"" + std::to_string(kTop + kHeight + kLabels) + "\" role=\"img\">\n";
  // The value axis: the unit, and a line and a value at each tick.
  out += "<g class=\"axis\"><text class=\"unit\" transform=\"translate(12," +
         std::to_string(kTop + kHeight / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         html::escape(axis.unit) + "</text>";
  for (const double t : ticks) {
    const double y = y_of(t);
    out += format("<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>",
                  kAxis - 4, y, kAxis + column * static_cast<double>(n), y) +
           format("<text class=\"tick\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>",
                  kAxis - 6, y + 4, t);
  }
  out += format("<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/></g>\n",
                kAxis, kTop, kAxis, kTop + kHeight);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double v = r[value_key].get<double>();
    const double x = kAxis + column * static_cast<double>(i);
    const std::string label = r[label_key].is_string()
                                  ? r[label_key].get<std::string>()
                                  : format("%.0f%%", 100 * r["from"].get<double>());
    out += "<g class=\"column\" data-label=\"" + html::escape(label) + "\" data-value=\"" +
           format("%.6g", v) + "\"><rect class=\"" + css_class + "\" x=\"" + format("%.1f", x + 1) +
           "\" y=\"" + format("%.1f", y_of(v * axis.scale)) + "\" width=\"" +
           format("%.1f", std::max(1.0, column - 2)) + "\" height=\"" +
           format("%.1f", kTop + kHeight - y_of(v * axis.scale)) + "\"><title>" +
           html::escape(label) + ": " + short_number(v * axis.scale) + " " +
           html::escape(axis.unit) + "</title></rect>";
    if (i % every == 0) {
      out += "<text transform=\"translate(" + format("%.1f", x + column / 2) + "," +
             std::to_string(kTop + kHeight + 8) + ") rotate(60)\">" + html::escape(label) +
             "</text>";
    }
    out += "</g>\n";
  }
  return out + "</svg>\n";
}

// The axis of core time over rows of `key` (hours).
ValueAxis core_axis(const nlohmann::json& rows, const char* key) {
  double most = 0;
  for (const auto& r : rows) most = std::max(most, r[key].get<double>());
  const CoreUnit u = core_unit(most);
  return {u.per_hour, u.name};
}

constexpr std::size_t kMostDays = 62;

std::string cell(const std::string& text) {
  return "<td>" + html::escape(text) + "</td>";
}

}  // namespace

std::string fleet_report_html(const nlohmann::json& r) {
  const auto& t = r["totals"];
  std::string out = html::page_start("mpidle fleet report");
  out +=
      "<h1>mpidle fleet report</h1>\n<section id=\"totals\"><p>" +
      format("%.0f jobs, ", t["jobs"].get<double>()) +
      html::escape(core_time(t["core_hours"].get<double>())) + ", " +
      html::escape(core_time(t["wait_core_hours"].get<double>())) +
      format(" of them waiting in MPI (%.1f%%)", 100 * t["wait_share"].get<double>()) +
      (t["first_job"].is_null() ? std::string()
                                : ", from " + t["first_job"].get<std::string>() + " to " +
                                      t["last_job"].get<std::string>()) +
      "</p>" +
      html::legend({{"compute", "core-hours not waiting"}, {"wait", "core-hours waiting in MPI"}}) +
      "</section>\n";
  for (const auto& [id, key, title] :
       {std::tuple{"applications", "application", "By application"},
        std::tuple{"users", "user", "By user"}, std::tuple{"accounts", "account", "By account"},
        // whole, incomplete (killed or still running: from checkpoints), partial
        std::tuple{"statuses", "status", "By how the job ended"}}) {
    // Reports of databases from before by_status have none.
    if (!r.contains(std::string("by_") + key)) continue;
    out += std::string("<section id=\"") + id + "\"><h2>" + title + "</h2>\n" +
           hours_bars(r[std::string("by_") + key], key) + "</section>\n";
  }
  const ValueAxis jobs{1, "jobs"}, share{100, "waiting (%)"};
  out += "<section id=\"histogram\"><h2>Wait share of jobs</h2>\n" +
         columns(r["wait_share_histogram"], "label", "jobs", "wait", jobs) + "</section>\n";
  if (r.contains("parallel_efficiency_histogram")) {
    out += "<section id=\"efficiency\"><h2>Parallel efficiency of jobs (POP)</h2>\n" +
           columns(r["parallel_efficiency_histogram"], "label", "jobs", "compute", jobs) +
           "</section>\n";
  }
  // Day by day up to two months; a longer span reads by week alone.
  const auto& days = r["per_day"];
  out += "<section id=\"days\">";
  if (days.size() <= kMostDays) {
    out += "<h2>Core time per day</h2>\n" +
           columns(days, "day", "core_hours", "compute", core_axis(days, "core_hours")) +
           "<h2>Wait share per day</h2>\n" + columns(days, "day", "wait_share", "wait", share);
  } else {
    out += format("<h2>Per day</h2><p>%.0f days: more than two months read by week, below.</p>",
                  static_cast<double>(days.size()));
  }
  out += "</section>\n";
  const auto& weeks = r["per_week"];
  out += "<section id=\"weeks\"><h2>Core time per week</h2>\n" +
         columns(weeks, "week", "core_hours", "compute", core_axis(weeks, "core_hours")) +
         "<h2>Wait share per week</h2>\n" + columns(weeks, "week", "wait_share", "wait", share) +
         "</section>\n";
  out +=
      "<section id=\"jobs\"><h2>Jobs that waited most</h2><table><tr><th>waiting</th>"
      "<th>wait share</th><th>application</th><th>user</th><th>job</th><th>run</th></tr>\n";
  for (const auto& j : r["top_jobs"]) {
    out += "<tr>" + cell(core_time(j["wait_core_hours"].get<double>())) +
           cell(format("%.1f%%", 100 * j["wait_share"].get<double>())) +
           cell(j["application"].get<std::string>()) + cell(j["user"].get<std::string>()) +
           cell(j["job_id"].get<std::string>()) + cell(j["run"].get<std::string>()) + "</tr>\n";
  }
  out +=
      "</table></section>\n<section id=\"callsites\"><h2>Callsites that waited most</h2>"
      "<table><tr><th>waiting</th><th>jobs</th><th>application</th><th>call</th>"
      "<th>where</th></tr>\n";
  for (const auto& c : r["top_callsites"]) {
    out += "<tr>" + cell(core_time(c["wait_core_hours"].get<double>())) +
           cell(format("%.0f", c["jobs"].get<double>())) +
           cell(c["application"].get<std::string>()) + cell(c["function"].get<std::string>()) +
           cell(c["location"].get<std::string>()) + "</tr>\n";
  }
  out +=
      "</table></section>\n<section id=\"rising\"><h2>Applications whose wait share rose</h2>"
      "<table><tr><th>application</th><th>recent</th><th>before</th></tr>\n";
  for (const auto& a : r["rising"]) {
    out += "<tr>" + cell(a["application"].get<std::string>()) +
           cell(format("%.1f%% (%.0f jobs)", 100 * a["recent_wait_share"].get<double>(),
                       a["recent_jobs"].get<double>())) +
           cell(format("%.1f%% (%.0f jobs)", 100 * a["history_wait_share"].get<double>(),
                       a["history_jobs"].get<double>())) +
           "</tr>\n";
  }
  out += "</table></section>\n";
  return out + html::page_end();
}

}  // namespace mpidle::report
