// mpidle analyze: exact wait states of a trace run, and how the minimum method's
// estimates compare with them. Writes RUN/analysis.json and prints the report.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "analysis/analysis_output.hpp"
#include "analysis/prediction.hpp"
#include "model/profile_reader.hpp"
#include "model/stage_log.hpp"
#include "model/trace_file.hpp"
#include "report/commands/command.hpp"
#include "report/text/analysis_text.hpp"
#include "sync/trace_matching.hpp"

namespace mpidle::report {

int analyze_command(Args args) {
  std::string run;
  std::size_t top = 10;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--top") {
      if (i + 1 >= args.size()) throw UsageError("--top needs a value");
      top = top_option(args[++i]);
    } else {
      take_positional(a, run, "run directory");
    }
  }
  if (run.empty()) throw UsageError("which run? (mpidle analyze RUN_DIR)");
  const auto dir = run_directory(run);
  const auto profile = read_trace_run(dir);
  const model::StageLog progress("mpidle analyze", profile.trace->events);
  progress("reading");
  const model::Trace trace = model::read_trace(dir / profile.trace->file);
  progress("analyzing");
  const bool show_progress = progress.on();
  // One matching of the trace's messages and collectives serves all three passes.
  const auto matching = sync::match_trace(trace);
  std::vector<analysis::WaitEvent> events;
  const auto waits = analysis::analyze_wait_states(
      trace, matching,
      [&](double done) {
        if (show_progress) std::fprintf(stderr, "mpidle analyze: %3.0f%%\r", 100 * done);
      },
      [&](const analysis::WaitEvent& e) { events.push_back(e); });
  if (show_progress) std::fputs("\n", stderr);
  // Why it waited: each wait state's delay on its partner, charged backwards.
  progress("finding the root causes");
  const analysis::DelayAnalysis delays =
      analysis::analyze_delays(trace, matching, std::move(events));
  // POP's transfer efficiency: the run replayed on an ideal network.
  progress("replaying on an ideal network");
  const model::PopEfficiency efficiency =
      analysis::with_ideal_network(trace, matching, profile.efficiency);
  const std::filesystem::path out = dir / analysis::kAnalysisFileName;
  nlohmann::json json;
  try {
    json = analysis::write_analysis(dir, profile, trace, waits, &efficiency, &delays);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::fputs(analysis_text(json, top).c_str(), stdout);
  std::fprintf(stderr, "mpidle analyze: wrote %s\n", out.c_str());
  return 0;
}

}  // namespace mpidle::report
