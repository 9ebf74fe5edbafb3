#include "report/html/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "report/html/html_communication.hpp"
#include "report/html/html_efficiency.hpp"
#include "report/html/html_estimates.hpp"
#include "report/html/html_page.hpp"
#include "report/html/html_root_causes.hpp"
#include "report/html/rank_bins.hpp"
#include "report/text/text_format.hpp"
#include "report/text/text_report.hpp"

namespace mpidle::report {
namespace {

using html::escape;

std::string run_section(const model::Profile& p, Estimate e) {
  const auto& r = p.run;
  std::string args;
  for (const auto& a : r.args) args += " " + a;
  std::string hosts;
  for (const auto& h : r.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
  auto row = [](const char* name, const std::string& value) {
    return "<tr><th>" + std::string(name) + "</th><td>" + escape(value) + "</td></tr>\n";
  };
  double wall = 0, mpi = 0, wait = 0;
  for (const auto& rank : p.ranks) {
    wall += rank.wall_s;
    mpi += rank.mpi_s;
    wait += wait_of(rank, e);
  }
  return "<section id=\"run\"><h2>Run</h2><table>\n" + row("program", r.executable + args) +
         row("ranks", std::to_string(r.ranks) + " on " + hosts) +
         row("MPI library", r.mpi_library) + row("start", r.start) +
         row("wall time", seconds(r.wall_s)) +
         row("time in MPI", format("%s of %s rank-seconds (%.1f%%)", seconds(mpi).c_str(),
                                   seconds(wall).c_str(), percent(mpi, wall))) +
         row("wait",
             format("%s (%.1f%% of wall; %s estimate: %s)", seconds(wait).c_str(),
                    percent(wait, wall), estimate_name(e), estimate_description(e).c_str())) +
         row("mode", r.mode) +
         row("timer", r.timer + ", resolution " + seconds(r.timer_resolution_s)) +
         row("profiler overhead",
             format("%s per call, %.3f%% of the run", seconds(r.overhead_per_call_s).c_str(),
                    100 * r.overhead_fraction)) +
         row("profiler set-up",
             seconds(r.setup_s) + " in MPI_Init or MPI_Session_init, not in the wall time") +
         (lost_records_text(p).empty() ? std::string() : row("warning", lost_records_text(p))) +
         "</table></section>\n";
}

std::string ranks_section(const model::Profile& p, Estimate e) {
  std::vector<html::Bar> bars;
  for (const auto& b : rank_bins(p, kMaxRankRows)) {
    double wall = 0, mpi = 0, wait = 0;
    for (std::size_t i = b.first; i <= b.last; ++i) {
      wall += p.ranks[i].wall_s;
      mpi += p.ranks[i].mpi_s;
      wait += wait_of(p.ranks[i], e);
    }
    const double n = static_cast<double>(b.last - b.first + 1);
    wall /= n;
    mpi /= n;
    wait /= n;
    const double compute = std::max(0.0, wall - mpi), processing = std::max(0.0, mpi - wait);
    bars.push_back({bin_label(p, b),
                    {{compute, "compute", "compute " + seconds(compute)},
                     {processing, "processing", "MPI processing " + seconds(processing)},
                     {wait, "wait", "wait " + seconds(wait)}},
                    format("data-first-rank=\"%lld\" data-last-rank=\"%lld\" data-wall-s=\"%.9g\" "
                           "data-wait-s=\"%.9g\"",
                           static_cast<long long>(p.ranks[b.first].rank),
                           static_cast<long long>(p.ranks[b.last].rank), wall, wait)});
  }
  const bool binned = bars.size() < p.ranks.size();
  return "<section id=\"ranks\"><h2>Time per rank</h2>\n" +
         std::string(binned ? "<p>" + std::to_string(p.ranks.size()) + " ranks in " +
                                  std::to_string(bars.size()) +
                                  " rows of consecutive ranks; each row shows their mean.</p>\n"
                            : "") +
         html::legend({{"compute", "compute (outside MPI)"},
                       {"processing", "MPI processing"},
                       {"wait", "wait in MPI"}}) +
         html::stacked_bars(bars, "rank-bars") + "</section>\n";
}

std::string callsites_section(Estimate e, const std::vector<const model::CallsiteRow*>& top) {
  std::vector<html::Bar> bars;
  std::string table =
      "<table><tr><th>#</th><th>function</th><th>location</th><th class=\"num\">visits</th>"
      "<th class=\"num\">time</th><th class=\"num\">wait</th><th class=\"num\">wait %</th></tr>\n";
  for (std::size_t i = 0; i < top.size(); ++i) {
    const auto& c = *top[i];
    const double wait = wait_of(c, e);
    table += format(
        "<tr data-function=\"%s\" data-wait-s=\"%.9g\"><td>%zu</td><td>%s</td>"
        "<td>%s</td><td class=\"num\">%llu</td><td class=\"num\">%s</td>"
        "<td class=\"num\">%s</td><td class=\"num\">%.1f</td></tr>\n",
        escape(c.function).c_str(), wait, i + 1, escape(c.function).c_str(),
        escape(callsite_location(c)).c_str(), static_cast<unsigned long long>(c.visits),
        seconds(c.time_s).c_str(), seconds(wait).c_str(), percent(wait, c.time_s));
    bars.push_back({format("#%zu %s", i + 1, c.function.c_str()),
                    {{c.time_s - wait, "processing", "processing " + seconds(c.time_s - wait)},
                     {wait, "wait", "wait " + seconds(wait)}},
                    ""});
  }
  return "<section id=\"callsites\"><h2>Top callsites by wait</h2>\n" +
         html::legend({{"processing", "MPI processing"}, {"wait", "wait"}}) +
         html::stacked_bars(bars, "callsite-bars") + table + "</table></section>\n";
}

std::string heatmap_section(const model::Profile& p,
                            const std::vector<const model::CallsiteRow*>& top) {
  const auto bins = rank_bins(p, kMaxRankRows);
  const std::size_t columns = std::min<std::size_t>(top.size(), 16);
  // Mean wait per rank of each (rank row, callsite); by_rank holds the run's estimate.
  std::vector<std::vector<double>> cell(bins.size(), std::vector<double>(columns, 0));
  const auto bin_of = bin_of_rank(p, bins);
  double peak = 0;
  for (std::size_t col = 0; col < columns; ++col) {
    for (const auto& share : top[col]->by_rank) {
      auto it = bin_of.find(share.rank);
      if (it == bin_of.end()) continue;
      const auto& bin = bins[it->second];
      cell[it->second][col] += share.wait_s / static_cast<double>(bin.size());
    }
  }
  for (const auto& row : cell) {
    for (double v : row) peak = std::max(peak, v);
  }
  constexpr int kLabel = 150, kCell = 44;
  const int row_height = bins.size() > 32 ? 10 : 18;
  const int width = kLabel + kCell * static_cast<int>(columns) + 10;
  const int height = 20 + row_height * static_cast<int>(bins.size());
  std::string out =
      "<section id=\"heatmap\"><h2>Wait by rank and callsite</h2>\n"
      "<p>Mean wait per rank (the run's wait estimate); columns are the callsites numbered "
      "above, darker is longer.</p>\n" +
      format("<svg class=\"heatmap\" width=\"%d\" height=\"%d\" role=\"img\">\n", width, height);
  for (std::size_t col = 0; col < columns; ++col) {
    out += format("<text x=\"%d\" y=\"12\">#%zu</text>", kLabel + static_cast<int>(col) * kCell + 8,
                  col + 1);
  }
  for (std::size_t b = 0; b < bins.size(); ++b) {
    const int y = 18 + static_cast<int>(b) * row_height;
    if (row_height >= 12 || b % 4 == 0) {
      out += format("<text x=\"0\" y=\"%d\">%s</text>", y + row_height - 2,
                    escape(bin_label(p, bins[b])).c_str());
    }
    for (std::size_t col = 0; col < columns; ++col) {
      const double v = cell[b][col];
      out += format(
          "<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
          "fill=\"%s\" stroke=\"#eee\"><title>%s, #%zu: %s</title></rect>",
          kLabel + static_cast<int>(col) * kCell, y, kCell - 2, row_height - 1,
          html::shade(peak > 0 ? v / peak : 0, html::kWaitColour).c_str(),
          escape(bin_label(p, bins[b])).c_str(), col + 1, seconds(v).c_str());
    }
    out += "\n";
  }
  return out + "</svg></section>\n";
}

std::string functions_section(const model::Profile& p, Estimate e) {
  std::string out =
      "<section id=\"functions\"><h2>MPI functions</h2><table><tr><th>function</th>"
      "<th class=\"num\">calls</th><th class=\"num\">time</th><th class=\"num\">wait</th>"
      "<th class=\"num\">bytes</th></tr>\n";
  for (const auto& f : p.functions) {
    const double wait = wait_of(f, e);
    out += format(
        "<tr data-function=\"%s\" data-calls=\"%llu\" data-time-s=\"%.9g\"><td>%s</td>"
        "<td class=\"num\">%llu</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
        "<td class=\"num\">%s</td></tr>\n",
        escape(f.name).c_str(), static_cast<unsigned long long>(f.calls), f.time_s,
        escape(f.name).c_str(), static_cast<unsigned long long>(f.calls), seconds(f.time_s).c_str(),
        seconds(wait).c_str(), bytes_text(f.bytes).c_str());
  }
  return out + "</table></section>\n";
}

std::string sync_section(const model::SyncSection& s) {
  return "<section id=\"sync\"><h2>Clock synchronization</h2><table>\n" +
         format(
             "<tr><th>clock-condition violations</th><td>%llu raw, %llu after offset "
             "interpolation, %llu after the controlled logical clock</td></tr>\n",
             static_cast<unsigned long long>(s.violations_raw),
             static_cast<unsigned long long>(s.violations_before),
             static_cast<unsigned long long>(s.violations_after)) +
         format("<tr><th>events moved</th><td>%llu, at most %s, on average %s</td></tr>\n",
                static_cast<unsigned long long>(s.events_moved), seconds(s.max_shift_s).c_str(),
                seconds(s.mean_shift_s).c_str()) +
         format("<tr><th>minimum latency, gamma</th><td>%s, %g</td></tr>\n",
                seconds(s.min_latency_s).c_str(), s.gamma) +
         format("<tr><th>messages matched</th><td>%llu (%llu cancelled)</td></tr>\n",
                static_cast<unsigned long long>(s.messages),
                static_cast<unsigned long long>(s.cancelled)) +
         (s.clock_reason.empty()
              ? std::string()
              : "<tr><th>clocks</th><td data-correction=\"" + escape(s.correction) + "\">" +
                    escape(s.clock_reason) +
                    format("; %llu ranks read rank 0's clock",
                           static_cast<unsigned long long>(s.reference_clock_ranks)) +
                    "</td></tr>\n<tr><th>latency</th><td>" + escape(s.latency_reason) +
                    "</td></tr>\n") +
         (s.unmatched_sends + s.unmatched_receives > 0
              ? format("<tr><th class=\"warning\">unmatched</th><td class=\"warning\">%llu "
                       "sends, %llu receives found no partner: trace-based waits are not "
                       "exact</td></tr>\n",
                       static_cast<unsigned long long>(s.unmatched_sends),
                       static_cast<unsigned long long>(s.unmatched_receives))
              : std::string()) +
         "</table></section>\n";
}

// The measured run and every predicted target on one scale: sums over ranks.
std::string prediction_section(const model::Profile& p, const nlohmann::json& prediction) {
  try {
    std::vector<html::Bar> bars;
    std::string table =
        "<table><tr><th>machine</th><th>predicted wall</th><th>vs measured</th>"
        "<th>dominated by</th></tr>\n";
    double measured_wall = 0, measured_mpi = 0, measured_wait = 0;
    for (const auto& r : p.ranks) {
      measured_mpi += r.mpi_s;
      measured_wait += r.wait_s;
    }
    for (const auto& t : prediction.at("targets")) {
      const auto& total = t.at("total");
      const double compute = total.at("compute_s").get<double>();
      const double model = total.at("latency_s").get<double>() +
                           total.at("bandwidth_s").get<double>() +
                           total.at("other_mpi_s").get<double>();
      const double wait = total.at("wait_s").get<double>();
      const std::string name = t.at("machine").get<std::string>();
      const double wall = t.at("wall_s").get<double>();
      measured_wall = t.at("measured_wall_s").get<double>();
      bars.push_back(
          {"predicted: " + name,
           {{compute, "compute", "compute " + seconds(compute)},
            {model, "processing", "latency, bandwidth, other MPI " + seconds(model)},
            {wait, "wait", "waiting " + seconds(wait)}},
           format("data-machine=\"%s\" data-wall-s=\"%.9g\"", escape(name).c_str(), wall)});
      table += "<tr><td>" + escape(name) + "</td><td>" + seconds(wall) + "</td><td>" +
               format("x%.2f", measured_wall > 0 ? wall / measured_wall : 0.0) + "</td><td>" +
               escape(t.at("dominant").get<std::string>()) + "</td></tr>\n";
    }
    double measured_rank_time = 0;
    for (const auto& t : prediction.at("targets")) {
      for (const auto& r : t.at("ranks"))
        measured_rank_time += r.at("measured_wall_s").get<double>();
      break;
    }
    const double compute = std::max(0.0, measured_rank_time - measured_mpi);
    bars.insert(bars.begin(),
                html::Bar{"measured here",
                          {{compute, "compute", "compute " + seconds(compute)},
                           {measured_mpi - measured_wait, "processing",
                            "MPI processing " + seconds(measured_mpi - measured_wait)},
                           {measured_wait, "wait", "wait " + seconds(measured_wait)}},
                          format("data-machine=\"measured\" data-wall-s=\"%.9g\"", measured_wall)});
    return "<section id=\"prediction\"><h2>Predicted on other machines</h2>\n"
           "<p>Time summed over ranks within the traced span (mpidle predict; "
           "docs/prediction.md). Measured wall " +
           seconds(measured_wall) + ".</p>\n" +
           html::legend({{"compute", "compute"},
                         {"processing", "MPI: latency, bandwidth, other"},
                         {"wait", "waiting"}}) +
           html::stacked_bars(bars, "prediction-bars") + table + "</table></section>\n";
  } catch (const nlohmann::json::exception& e) {
    return "<section id=\"prediction\"><h2>Predicted on other machines</h2><p>prediction.json is "
           "incomplete: " +
           escape(e.what()) + "</p></section>\n";
  }
}

}  // namespace

std::string html_report(const model::Profile& p, const ReportOptions& o, const HtmlExtras& extras) {
  auto top = callsites_by_wait(p, o.estimate);
  top.resize(std::min(top.size(), std::max<std::size_t>(o.top, 1)));
  std::string out = html::page_start("mpidle: " + p.run.executable);
  out += "<h1>mpidle profile of " + escape(p.run.executable) + "</h1>\n";
  out += run_section(p, o.estimate);
  out += efficiency_section(p.efficiency);
  std::vector<double> region_waits;
  for (const auto& r : p.regions) region_waits.push_back(wait_of(r, o.estimate));
  out += regions_section(p.regions, region_waits);
  out += ranks_section(p, o.estimate);
  out += callsites_section(o.estimate, top);
  out += estimates_section(top, extras.analysis);
  out += root_causes_section(extras.analysis, std::max<std::size_t>(o.top, 1));
  out += durations_section(top);
  out += heatmap_section(p, top);
  out += functions_section(p, o.estimate);
  out += communication_matrix_section(p);
  out += message_size_section(p);
  if (!extras.summary_text.empty()) {
    out += "<section id=\"summary\"><h2>Loop summary</h2>\n<pre>" + escape(extras.summary_text) +
           "</pre></section>\n";
  }
  out += extras.loop_timeline;
  if (p.sync) out += sync_section(*p.sync);
  if (extras.prediction.is_object()) out += prediction_section(p, extras.prediction);
  return out + html::page_end();
}

std::string html_comparison(const Comparison& c, std::size_t top) {
  std::string out = html::page_start("mpidle compare");
  out += "<h1>mpidle compare</h1>\n<section id=\"runs\"><table><tr><th>A</th><td>" +
         escape(c.label_a) + "</td></tr><tr><th>B</th><td>" + escape(c.label_b) +
         "</td></tr></table>\n";
  for (const auto& note : c.caveats) out += "<p class=\"note\">" + escape(note) + "</p>\n";
  out +=
      "</section>\n<section id=\"totals\"><h2>Sums over ranks</h2><table><tr><th></th>"
      "<th class=\"num\">A</th><th class=\"num\">B</th><th class=\"num\">B/A</th></tr>\n";
  auto row = [&out](const char* name, const Pair& p) {
    out += format(
        "<tr><th>%s</th><td class=\"num\">%s</td><td class=\"num\">%s</td>"
        "<td class=\"num\">%.2f</td></tr>\n",
        name, seconds(p.a).c_str(), seconds(p.b).c_str(), p.ratio());
  };
  row("wall", c.wall);
  row("computation", c.compute);
  row("MPI", c.mpi);
  row("wait", c.wait);
  out +=
      "</table></section>\n<section id=\"pop\"><h2>Efficiency (POP metrics, A the "
      "reference)</h2>\n<pre>" +
      escape(format_pop_table(c)) + "</pre></section>\n";
  out += "<section id=\"callsites\"><h2>Callsites by change of time</h2>\n" +
         html::legend({{"processing", "MPI processing"}, {"wait", "wait"}}) +
         "<p>Two bars per callsite: A above, B below.</p>\n";
  std::vector<html::Bar> bars;
  std::string table =
      "<table><tr><th>function</th><th>location</th><th class=\"num\">time A</th>"
      "<th class=\"num\">time B</th><th class=\"num\">B/A</th><th class=\"num\">wait B/A</th>"
      "<th class=\"num\">processing B/A</th><th>dominated by</th></tr>\n";
  for (std::size_t i = 0; i < c.callsites.size() && i < top; ++i) {
    const auto& s = c.callsites[i];
    bars.push_back({"A " + s.function,
                    {{s.processing.a, "processing", "processing " + seconds(s.processing.a)},
                     {s.wait.a, "wait", "wait " + seconds(s.wait.a)}},
                    ""});
    bars.push_back({"B " + s.function,
                    {{s.processing.b, "processing", "processing " + seconds(s.processing.b)},
                     {s.wait.b, "wait", "wait " + seconds(s.wait.b)}},
                    ""});
    table += format(
        "<tr%s data-function=\"%s\" data-time-ratio=\"%.6g\"><td>%s%s</td><td>%s</td>"
        "<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%.2f</td>"
        "<td class=\"num\">%.2f</td><td class=\"num\">%.2f</td><td>%s</td></tr>\n",
        s.changed_most ? " class=\"changed-most\"" : "", escape(s.function).c_str(), s.time.ratio(),
        s.changed_most ? "&#9654; " : "", escape(s.function).c_str(), escape(s.location).c_str(),
        seconds(s.time.a).c_str(), seconds(s.time.b).c_str(), s.time.ratio(), s.wait.ratio(),
        s.processing.ratio(), dominant_name(s.dominant));
  }
  out += html::stacked_bars(bars, "compare-bars") + table + "</table></section>\n";
  return out + html::page_end();
}

}  // namespace mpidle::report
