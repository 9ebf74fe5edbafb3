#include "fleet_html.hpp"

#include <algorithm>
#include <cstdio>

#include "html_page.hpp"

namespace mpidle::report {
namespace {

std::string format(const char* pattern, double a, double b = 0, double c = 0, double d = 0) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, a, b, c, d);
  return text;
}

// Horizontal bars of core-hours, split into computing (not waiting) and waiting.
std::string hours_bars(const nlohmann::json& rows, const char* key) {
  constexpr int kLabel = 180, kWidth = 700, kRow = 18;
  double most = 0;
  for (const auto& r : rows) most = std::max(most, r["core_hours"].get<double>());
  std::string out = "<svg width=\"" + std::to_string(kLabel + kWidth + 120) + "\" height=\"" +
                    std::to_string(static_cast<int>(rows.size()) * kRow + 4) + "\" role=\"img\">\n";
  int y = 2;
  for (const auto& r : rows) {
    const double total = r["core_hours"].get<double>();
    const double wait = std::min(total, r["wait_core_hours"].get<double>());
    const double scale = most > 0 ? kWidth / most : 0;
    const std::string label = r[key].get<std::string>();
    out += "<g class=\"bar\" data-name=\"" + html::escape(label) + "\" data-core-hours=\"" +
           format("%.6g", total) + "\" data-wait-core-hours=\"" + format("%.6g", wait) + "\">";
    out += "<text x=\"0\" y=\"" + std::to_string(y + 12) + "\">" + html::escape(label) + "</text>";
    out += "<rect class=\"compute\" x=\"" + std::to_string(kLabel) + "\" y=\"" + std::to_string(y) +
           "\" width=\"" + format("%.1f", (total - wait) * scale) + "\" height=\"14\"><title>" +
           format("%.2f core-hours not waiting", total - wait) + "</title></rect>";
    out += "<rect class=\"wait\" x=\"" + format("%.1f", kLabel + (total - wait) * scale) +
           "\" y=\"" + std::to_string(y) + "\" width=\"" + format("%.1f", wait * scale) +
           "\" height=\"14\"><title>" + format("%.2f core-hours waiting in MPI", wait) +
           "</title></rect>";
    out += "<text x=\"" + format("%.1f", kLabel + total * scale + 6) + "\" y=\"" +
           std::to_string(y + 12) + "\">" +
           format("%.1f core-h, %.1f%% waiting", total, 100 * r["wait_share"].get<double>()) +
           "</text></g>\n";
    y += kRow;
  }
  return out + "</svg>\n";
}

// Vertical columns: `value_key` per row, labelled by `label_key`.
std::string columns(const nlohmann::json& rows, const char* label_key, const char* value_key,
                    const char* css_class) {
  constexpr int kHeight = 160, kColumn = 22;
  double most = 0;
  for (const auto& r : rows) most = std::max(most, r[value_key].get<double>());
  std::string out = "<svg width=\"" + std::to_string(static_cast<int>(rows.size()) * kColumn + 40) +
                    "\" height=\"" + std::to_string(kHeight + 70) + "\" role=\"img\">\n";
  int x = 4;
  for (const auto& r : rows) {
    const double v = r[value_key].get<double>();
    const double h = most > 0 ? v / most * kHeight : 0;
    const std::string label = r[label_key].is_string()
                                  ? r[label_key].get<std::string>()
                                  : format("%.0f%%", 100 * r["from"].get<double>());
    out += "<g class=\"column\" data-label=\"" + html::escape(label) + "\" data-value=\"" +
           format("%.6g", v) + "\"><rect class=\"" + css_class + "\" x=\"" + std::to_string(x) +
           "\" y=\"" + format("%.1f", kHeight - h) + "\" width=\"" + std::to_string(kColumn - 4) +
           "\" height=\"" + format("%.1f", h) + "\"><title>" + html::escape(label) + ": " +
           format("%.4g", v) + "</title></rect><text transform=\"translate(" +
           std::to_string(x + 12) + "," + std::to_string(kHeight + 6) + ") rotate(60)\">" +
           html::escape(label) + "</text></g>\n";
    x += kColumn;
  }
  return out + "</svg>\n";
}

std::string cell(const std::string& text) {
  return "<td>" + html::escape(text) + "</td>";
}

}  // namespace

std::string fleet_report_html(const nlohmann::json& r) {
  const auto& t = r["totals"];
  std::string out = html::page_start("mpidle fleet report");
  out +=
      "<h1>mpidle fleet report</h1>\n<section id=\"totals\"><p>" +
      format("%.0f jobs, %.1f core-hours, %.1f of them waiting in MPI (%.1f%%)",
             t["jobs"].get<double>(), t["core_hours"].get<double>(),
             t["wait_core_hours"].get<double>(), 100 * t["wait_share"].get<double>()) +
      (t["first_job"].is_null() ? std::string()
                                : ", from " + t["first_job"].get<std::string>() + " to " +
                                      t["last_job"].get<std::string>()) +
      "</p>" +
      html::legend({{"compute", "core-hours not waiting"}, {"wait", "core-hours waiting in MPI"}}) +
      "</section>\n";
  for (const auto& [id, key, title] :
       {std::tuple{"applications", "application", "By application"},
        std::tuple{"users", "user", "By user"}, std::tuple{"accounts", "account", "By account"}}) {
    out += std::string("<section id=\"") + id + "\"><h2>" + title + "</h2>\n" +
           hours_bars(r[std::string("by_") + key], key) + "</section>\n";
  }
  out += "<section id=\"histogram\"><h2>Wait share of jobs</h2>\n" +
         columns(r["wait_share_histogram"], "label", "jobs", "wait") + "</section>\n";
  if (r.contains("parallel_efficiency_histogram")) {
    out += "<section id=\"efficiency\"><h2>Parallel efficiency of jobs (POP)</h2>\n" +
           columns(r["parallel_efficiency_histogram"], "label", "jobs", "compute") + "</section>\n";
  }
  out += "<section id=\"days\"><h2>Core-hours per day</h2>\n" +
         columns(r["per_day"], "day", "core_hours", "compute") + "<h2>Wait share per day</h2>\n" +
         columns(r["per_day"], "day", "wait_share", "wait") + "</section>\n";
  out += "<section id=\"weeks\"><h2>Core-hours per week</h2>\n" +
         columns(r["per_week"], "week", "core_hours", "compute") + "</section>\n";
  out +=
      "<section id=\"jobs\"><h2>Jobs that waited most</h2><table><tr><th>wait core-h</th>"
      "<th>wait</th><th>application</th><th>user</th><th>job</th><th>run</th></tr>\n";
  for (const auto& j : r["top_jobs"]) {
    out += "<tr>" + cell(format("%.2f", j["wait_core_hours"].get<double>())) +
           cell(format("%.1f%%", 100 * j["wait_share"].get<double>())) +
           cell(j["application"].get<std::string>()) + cell(j["user"].get<std::string>()) +
           cell(j["job_id"].get<std::string>()) + cell(j["run"].get<std::string>()) + "</tr>\n";
  }
  out +=
      "</table></section>\n<section id=\"callsites\"><h2>Callsites that waited most</h2>"
      "<table><tr><th>wait core-h</th><th>jobs</th><th>application</th><th>call</th>"
      "<th>where</th></tr>\n";
  for (const auto& c : r["top_callsites"]) {
    out += "<tr>" + cell(format("%.2f", c["wait_core_hours"].get<double>())) +
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
