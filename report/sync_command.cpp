#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "command.hpp"
#include "model/profile_reader.hpp"
#include "model/trace_file.hpp"
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
    if (a == "--gamma" || a == "--latency") {
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

  model::Trace trace = model::read_trace(dir / profile.trace->file);
  const auto result = sync::synchronize_trace(trace, params);
  model::write_trace(dir / profile.trace->file, trace);

  try {
    sync::rewrite_sync_section(dir / "profile.json", sync::sync_section(trace, result));
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::printf(
      "mpidle sync: %s: gamma %g, latency %.3g s: violations %llu raw, %llu after interpolation, "
      "%llu after the controlled logical clock; %llu events moved, max shift %.3g s\n",
      dir.c_str(), result.params.gamma, static_cast<double>(result.params.min_latency_ns) * 1e-9,
      static_cast<unsigned long long>(result.violations_raw),
      static_cast<unsigned long long>(result.clc.violations_before),
      static_cast<unsigned long long>(result.clc.violations_after),
      static_cast<unsigned long long>(result.clc.events_moved),
      static_cast<double>(result.clc.max_shift_ns) * 1e-9);
  if (result.unmatched_sends + result.unmatched_receives > 0) {
    std::fprintf(stderr,
                 "mpidle sync: warning: %llu sends and %llu receives found no partner; "
                 "messages after them may be paired wrongly\n",
                 static_cast<unsigned long long>(result.unmatched_sends),
                 static_cast<unsigned long long>(result.unmatched_receives));
  }
  return 0;
}

}  // namespace mpidle::report
