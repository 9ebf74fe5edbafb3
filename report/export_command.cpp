// mpidle export: a trace run as a timeline for other tools.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "chrome_export.hpp"
#include "command.hpp"
#include "model/profile_reader.hpp"
#include "model/trace_file.hpp"
#include "otf2_export.hpp"

namespace mpidle::report {

int export_command(Args args) {
  std::string run, chrome, otf2;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--chrome" || a == "--otf2") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs an output path");
      (a == "--chrome" ? chrome : otf2) = args[++i];
    } else {
      take_positional(a, run, "run directory");
    }
  }
  if (run.empty()) throw UsageError("which run? (mpidle export RUN_DIR --chrome OUT.json)");
  if (chrome.empty() && otf2.empty()) {
    throw UsageError("which format? (--chrome OUT.json, --otf2 DIR)");
  }
  if (!otf2.empty() && !otf2_available()) {
    throw UsageError(
        "--otf2: this mpidle was built without the OTF2 library (Debian: "
        "libotf2-trace-dev, then rebuild)");
  }
  const auto dir = run_directory(run);
  const auto profile = read_trace_run(dir);
  const model::Trace trace = model::read_trace(dir / profile.trace->file);
  if (!otf2.empty()) {
    Otf2ExportStats stats;
    try {
      stats = write_otf2_archive(trace, otf2);
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string("--otf2 ") + otf2 + ": " + e.what());
    }
    std::fprintf(stderr,
                 "mpidle export: %s/traces.otf2: %zu ranks, %llu calls, %llu sends, %llu "
                 "receives, %llu collective calls on %llu communicators%s; open it in Vampir or "
                 "read it with otf2-print\n",
                 otf2.c_str(), trace.ranks.size(), static_cast<unsigned long long>(stats.calls),
                 static_cast<unsigned long long>(stats.sends),
                 static_cast<unsigned long long>(stats.receives),
                 static_cast<unsigned long long>(stats.collectives),
                 static_cast<unsigned long long>(stats.communicators),
                 stats.synchronized ? "" : " (raw clocks: the trace was never synchronized)");
    if (chrome.empty()) return 0;
  }
  std::ofstream out(chrome);
  if (!out) throw UsageError("cannot write " + chrome);
  const auto stats = write_chrome_trace(trace, out);
  out.close();
  if (!out) throw UsageError("cannot write " + chrome);
  std::fprintf(stderr,
               "mpidle export: %s: %zu ranks, %llu slices, %llu message arrows%s; open it in "
               "Perfetto UI or chrome://tracing\n",
               chrome.c_str(), trace.ranks.size(), static_cast<unsigned long long>(stats.slices),
               static_cast<unsigned long long>(stats.flows),
               stats.synchronized ? "" : " (raw clocks: the trace was never synchronized)");
  return 0;
}

}  // namespace mpidle::report
