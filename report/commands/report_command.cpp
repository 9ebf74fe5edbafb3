#include <cstdio>

#include <filesystem>
#include <fstream>

#include "analysis/analysis_output.hpp"
#include "analysis/prediction_output.hpp"
#include "compress/summary_json.hpp"
#include "compress/summary_text.hpp"
#include "model/profile_reader.hpp"
#include "report/commands/command.hpp"
#include "report/html/html_report.hpp"
#include "report/html/html_timeline.hpp"
#include "report/runs/run_analysis.hpp"
#include "report/text/analysis_text.hpp"
#include "report/text/text_report.hpp"

namespace mpidle::report {
namespace {

// profile.json's "summary" section, or null (not a trace run, or unreadable: the
// rest of the report does not depend on it).
nlohmann::json summary_section(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path file = fs::is_directory(path) ? fs::path(path) / "profile.json" : fs::path(path);
  std::ifstream in(file);
  auto doc = model::read_json(in);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("summary")) return nullptr;
  return std::move(doc["summary"]);
}

// The loop summary of a trace run as text, or "".
std::string loop_summary_text(const nlohmann::json& summary) {
  if (summary.is_null()) return "";
  try {
    return compress::render_summary_text(compress::summary_from_json(summary), {});
  } catch (const model::ProfileError& e) {
    return std::string("(the loop summary cannot be read: ") + e.what() + ")";
  }
}

// The analysis report of `mpidle analyze`, when the run has one (`doc`: the run's
// analysis.json as run_document read it, null when missing or unreadable).
std::string analysis_of_run(const std::string& path, const nlohmann::json& doc) {
  const auto dir = run_directory(path);
  if (doc.is_null()) {
    return std::filesystem::exists(dir / analysis::kAnalysisFileName)
               ? "\n(" + (dir / analysis::kAnalysisFileName).string() +
                     " is not a readable analysis)\n"
               : "";
  }
  try {
    return "\n" + analysis_text(doc, 10);
  } catch (const nlohmann::json::exception& e) {
    return "\n(" + (dir / analysis::kAnalysisFileName).string() + " is incomplete: " + e.what() +
           ")\n";
  }
}

}  // namespace

int report_command(Args args) {
  std::string path;
  ReportOptions options;
  bool estimate_given = false;
  std::string html_out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--html") {
      if (i + 1 >= args.size()) throw UsageError("--html needs an output file");
      html_out = args[++i];
    } else if (a == "--top" || a == "--minimum" || a == "--estimate") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      const std::string& v = args[++i];
      if (a == "--top") {
        options.top = top_option(v);
      } else {
        const auto e = parse_estimate(v);
        if (!e) throw UsageError(a + " is calibrated, robust, minimum or global");
        options.estimate = *e;
        estimate_given = true;
      }
    } else {
      take_positional(a, path, "run directory or profile.json");
    }
  }
  if (path.empty()) throw UsageError("which run? (mpidle report RUN_DIR)");
  auto profile = model::read_profile(path);
  if (!estimate_given) options.estimate = estimate_of(profile);
  const auto analysis_doc = run_document(path, analysis::kAnalysisFileName,
                                         analysis::kAnalysisSchema, analysis::kAnalysisSchemaV1);
  // mpidle analyze's ideal-network replay splits communication efficiency.
  add_ideal_network(profile, analysis_doc);
  if (!html_out.empty()) {
    std::ofstream out(html_out);
    const auto summary = summary_section(path);
    // A run without the trace's root causes shows its windows'.
    nlohmann::json analysis_for_page = analysis_doc;
    if (analysis_doc.is_null() || !analysis_doc.contains("root_causes")) {
      if (auto windowed = window_root_causes(profile); !windowed.is_null()) {
        if (analysis_for_page.is_null()) analysis_for_page = nlohmann::json::object();
        analysis_for_page["root_causes"] = std::move(windowed);
      }
    }
    const HtmlExtras extras{
        loop_summary_text(summary), loop_timeline_section(profile, run_directory(path), summary),
        run_document(path, analysis::kPredictionFileName, analysis::kPredictionSchema),
        analysis_for_page};
    out << html_report(profile, options, extras);
    out.close();
    if (!out) throw UsageError("cannot write " + html_out);
    std::fprintf(stderr, "mpidle report: wrote %s\n", html_out.c_str());
    return 0;
  }
  // A run without the trace's root causes shows its windows'.
  std::string causes;
  if (analysis_doc.is_null() || !analysis_doc.contains("root_causes")) {
    if (const auto windowed = window_root_causes(profile); !windowed.is_null())
      causes = root_causes_text(windowed, 10);
  }
  std::fputs(
      (format_report(profile, options) + causes + analysis_of_run(path, analysis_doc)).c_str(),
      stdout);
  return 0;
}

}  // namespace mpidle::report
