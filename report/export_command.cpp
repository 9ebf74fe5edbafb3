// mpidle export: a trace run as a timeline for other tools.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "chrome_export.hpp"
#include "command.hpp"
#include "model/profile_reader.hpp"
#include "model/trace_file.hpp"

namespace mpidle::report {

int export_command(Args args) {
  std::string run, chrome;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--chrome") {
      if (i + 1 >= args.size()) throw UsageError("--chrome needs an output file");
      chrome = args[++i];
    } else {
      take_positional(a, run, "run directory");
    }
  }
  if (run.empty()) throw UsageError("which run? (mpidle export RUN_DIR --chrome OUT.json)");
  if (chrome.empty()) throw UsageError("which format? (--chrome OUT.json)");
  const auto dir = run_directory(run);
  const auto profile = read_trace_run(dir);
  const model::Trace trace = model::read_trace(dir / profile.trace->file);
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
