#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "model/profile_reader.hpp"
#include "model/stage_log.hpp"
#include "model/trace_file.hpp"
#include "report/commands/command.hpp"
#include "sync/sync_report.hpp"

namespace mpidle::report {
namespace {
namespace fs = std::filesystem;
}  // namespace

int sync_command(Args args) {
  std::string run;
  sync::ClcParams params;
  params.min_latency_ns = -1;  // as measured by the profiler
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--raw-clocks") {
      params.raw_clocks = true;
    } else if (a == "--gamma" || a == "--latency") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      const double v = number_option(a, args[++i]);
      if (a == "--gamma") {
        if (!(v > 0 && v <= 1)) throw UsageError("--gamma must be in (0, 1]");
        params.gamma = v;
      } else {
        if (!(v >= 0 && v < 1)) throw UsageError("--latency is in seconds, from 0 to 1");
        params.min_latency_ns = static_cast<std::int64_t>(v * 1e9 + 0.5);
      }
    } else {
      take_positional(a, run, "run directory");
    }
  }
  if (run.empty()) throw UsageError("which run? (mpidle sync RUN_DIR)");
  const fs::path dir = run_directory(run);
  const auto profile = read_trace_run(dir);

  const model::StageLog progress("mpidle sync", profile.trace->events);
  progress("reading");
  model::Trace trace = model::read_trace(dir / profile.trace->file);
  progress("synchronizing");
  const auto result = sync::synchronize_trace(trace, params);
  progress("writing");
  model::write_trace(dir / profile.trace->file, trace);

  try {
    sync::rewrite_sync_section(dir / "profile.json", sync::sync_section(trace, result));
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::printf("mpidle sync: %s: gamma %g, latency %.3g s: %s\n", dir.c_str(), result.params.gamma,
              static_cast<double>(result.params.min_latency_ns) * 1e-9,
              sync::sync_outcome(result).c_str());
  std::printf("mpidle sync: clocks: %s\nmpidle sync: latency: %s\n", result.clock_reason.c_str(),
              result.latency_reason.c_str());
  if (const auto warning = sync::unmatched_warning(result); !warning.empty()) {
    std::fprintf(stderr, "mpidle sync: warning: %s\n", warning.c_str());
  }
  return 0;
}

}  // namespace mpidle::report
