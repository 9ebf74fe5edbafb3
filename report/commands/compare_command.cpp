// mpidle compare: two runs of one application, side by side.
#include <cstdio>

#include <fstream>

#include "analysis/analysis_output.hpp"
#include "report/commands/command.hpp"
#include "report/html/html_report.hpp"
#include "report/runs/prediction_run.hpp"
#include "report/text/compare.hpp"

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
        if (!estimate) throw UsageError(arg + " is calibrated, robust, minimum or global");
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
  // A traced run's analysis.json, read once: its ideal-network split of communication
  // efficiency, and its exact wait unless an estimate was asked for.
  auto analysis_of = [](const std::string& path) -> nlohmann::json {
    if (is_prediction_file(path)) return nullptr;
    return run_document(path, analysis::kAnalysisFileName, analysis::kAnalysisSchema,
                        analysis::kAnalysisSchemaV1);
  };
  const auto analysis_a = analysis_of(a);
  const auto analysis_b = analysis_of(b);
  add_ideal_network(pa, analysis_a);
  add_ideal_network(pb, analysis_b);
  const Estimate e = estimate.value_or(estimate_of(pa));
  const auto xa = estimate ? std::nullopt : exact_waits_of(analysis_a);
  const auto xb = estimate ? std::nullopt : exact_waits_of(analysis_b);
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
