#include "report/html/html_root_causes.hpp"

#include <algorithm>

#include "report/html/html_page.hpp"
#include "report/runs/run_analysis.hpp"
#include "report/text/text_format.hpp"

namespace mpidle::report {
namespace {

using html::escape;

double number(const nlohmann::json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string text(const nlohmann::json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// One callsite's waiting as a bar of its causes, 300 px for its share of the most.
std::string cause_bar(const nlohmann::json& row, double most) {
  static const char* const kCauses[][2] = {{"computation_s", "computation"},
                                           {"latency_s", "latency"},
                                           {"bandwidth_s", "bandwidth"},
                                           {"propagated_s", "propagated"},
                                           {"unexplained_s", "unexplained"}};
  const double wait = number(row, "wait_s");
  const double width = most > 0 ? 300 * wait / most : 0;
  std::string out = format("<svg class=\"causes\" width=\"302\" height=\"14\" role=\"img\">");
  double x = 0;
  for (const auto& [key, name] : kCauses) {
    const double w = wait > 0 ? width * number(row, key) / wait : 0;
    if (w <= 0) continue;
    out += format(
        "<rect class=\"cause %s\" x=\"%.2f\" y=\"1\" width=\"%.2f\" height=\"12\"><title>%s %s"
        "</title></rect>",
        name, x, w, name, seconds(number(row, key)).c_str());
    x += w;
  }
  return out + "</svg>";
}

}  // namespace

std::string root_causes_section(const nlohmann::json& analysis, std::size_t top) {
  if (!analysis.is_object() || !analysis.contains("root_causes")) return "";
  const auto& r = analysis.at("root_causes");
  if (!r.is_object() || !r.contains("callsites") || !r["callsites"].is_array()) return "";
  const auto& sites = r["callsites"];
  double most = 0;
  for (const auto& s : sites) most = std::max(most, number(s, "wait_s"));
  std::string out =
      "<section id=\"root-causes\"><h2>Why it waited</h2>\n<p>Each wait state is charged to "
      "the excess time its partner spent before they synchronized: computation (load "
      "imbalance), communication (latency, bandwidth), or waiting of its own, which is "
      "propagated. Where names the largest cause's place: the call the computation came "
      "before or the communication was in, and its ranks, or the callsite the waiting was "
      "propagated from (Böhme et al.'s delay analysis; docs/analysis-format.md).</p>\n" +
      (text(r, "source") == "windows"
           ? format("<p>From the trace windows: each callsite's wait split as its %.0f windowed "
                    "wait states were.</p>\n",
                    number(r, "wait_states"))
           : std::string()) +
      html::legend({{"cause computation", "computation"},
                    {"cause latency", "latency"},
                    {"cause bandwidth", "bandwidth"},
                    {"cause propagated", "propagated"},
                    {"cause unexplained", "unexplained"}}) +
      "<table><tr><th>function</th><th>location</th><th class=\"num\">waiting</th><th>by "
      "cause</th><th>where</th></tr>\n";
  std::size_t n = 0;
  for (const auto& s : sites) {
    if (n++ == top) break;
    const std::string from = where_caused(causes_of(s));
    out += format(
        "<tr data-function=\"%s\" data-computation-s=\"%.9g\" data-communication-s=\"%.9g\" "
        "data-propagated-s=\"%.9g\"><td>%s</td><td>%s</td><td class=\"num\">%s</td><td>%s</td>"
        "<td>%s</td></tr>\n",
        escape(text(s, "function")).c_str(), number(s, "computation_s"),
        number(s, "latency_s") + number(s, "bandwidth_s"), number(s, "propagated_s"),
        escape(text(s, "function")).c_str(), escape(text(s, "location")).c_str(),
        seconds(number(s, "wait_s")).c_str(), cause_bar(s, most).c_str(), escape(from).c_str());
  }
  out +=
      "</table>\n<table><tr><th>delay</th><th>function</th><th>location</th>"
      "<th class=\"num\">short-term</th><th class=\"num\">long-term</th></tr>\n";
  if (r.contains("delays") && r["delays"].is_array()) {
    n = 0;
    for (const auto& d : r["delays"]) {
      if (n++ == top) break;
      const std::string kind = text(d, "kind");
      out += format(
          "<tr data-kind=\"%s\"><td>%s %s</td><td>%s</td><td>%s</td><td class=\"num\">%s</td>"
          "<td class=\"num\">%s</td></tr>\n",
          escape(kind).c_str(), escape(kind).c_str(), kind == "computation" ? "before" : "in",
          escape(text(d, "function")).c_str(), escape(text(d, "location")).c_str(),
          seconds(number(d, "short_term_s")).c_str(), seconds(number(d, "long_term_s")).c_str());
    }
  }
  return out + "</table></section>\n";
}

}  // namespace mpidle::report
