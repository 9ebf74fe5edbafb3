// mpidle compare: two runs of one application, side by side.
#include <cstdio>

#include <fstream>

#include "analysis/analysis_output.hpp"
#include "command.hpp"
#include "compare.hpp"
#include "html_report.hpp"
#include "prediction_run.hpp"

namespace mpidle::report {

int compare_command(Args args) {
  std::string a, b;
  std::size_t top = 10;
  std::optional<Estimate> estimate;
  std::string html_out, target;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--target") {
      if (i + 1 >= args.size()) throw UsageError("--target needs a machine name");
      target = args[++i];
    } else if (arg == "--html") {
      if (i + 1 >= args.size()) throw UsageError("--html needs an output file");
      html_out = args[++i];
    } else if (arg == "--top" || arg == "--minimum" || arg == "--estimate") {
      if (i + 1 >= args.size()) throw UsageError(arg + " needs a value");
      const std::string& v = args[++i];
      if (arg == "--top") {
        top = top_option(v);
      } else {
        estimate = parse_estimate(v);
        if (!estimate) throw UsageError(arg + " is robust, minimum or global");
      }
    } else if (a.empty()) {
      take_positional(arg, a, "pair of runs");
    } else {
      take_positional(arg, b, "pair of runs");
    }
  }
  if (a.empty() || b.empty()) throw UsageError("which two runs? (mpidle compare RUN_A RUN_B)");
  // Either side may be a prediction (RUN/prediction.json): the run as predicted.
  auto read = [&](const std::string& path) {
    return is_prediction_file(path) ? read_prediction_as_profile(path, target)
                                    : model::read_profile(path);
  };
  auto pa = read(a);
  auto pb = read(b);
  // mpidle analyze's ideal-network split of a traced run's communication efficiency.
  auto add_ideal = [](const std::string& path, model::Profile& p) {
    if (is_prediction_file(path)) return;
    std::ifstream in(run_directory(path) / analysis::kAnalysisFileName);
    if (!in) return;
    const auto doc = model::read_json(in);
    if (doc.is_object() && doc.contains("efficiency") && doc["efficiency"].is_object() &&
        doc["efficiency"].contains("ideal_runtime_s") &&
        doc["efficiency"]["ideal_runtime_s"].is_number()) {
      model::add_ideal_network(p.efficiency, doc["efficiency"]["ideal_runtime_s"].get<double>());
    }
  };
  add_ideal(a, pa);
  add_ideal(b, pb);
  const Estimate e = estimate.value_or(estimate_of(pa));
  // A traced run's exact wait, from its analysis.json, unless an estimate was asked for.
  auto exact = [&](const std::string& path) -> std::optional<ExactWaits> {
    if (estimate || is_prediction_file(path)) return std::nullopt;
    std::ifstream in(run_directory(path) / analysis::kAnalysisFileName);
    if (!in) return std::nullopt;
    return exact_waits_of(model::read_json(in));
  };
  const auto xa = exact(a);
  const auto xb = exact(b);
  const Comparison comparison =
      compare_profiles(pa, pb, e, xa ? &*xa : nullptr, xb ? &*xb : nullptr);
  if (!html_out.empty()) {
    std::ofstream out(html_out);
    out << html_comparison(comparison, top);
    out.close();
    if (!out) throw UsageError("cannot write " + html_out);
    std::fprintf(stderr, "mpidle compare: wrote %s\n", html_out.c_str());
  }
  std::fputs(format_comparison(comparison, top).c_str(), stdout);
  return 0;
}

}  // namespace mpidle::report
