// mpidle export: a trace run as a timeline for other tools.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "model/profile_reader.hpp"
#include "model/stage_log.hpp"
#include "model/trace_file.hpp"
#include "report/commands/command.hpp"
#include "report/export/chrome_export.hpp"
#include "report/export/otf2_export.hpp"

namespace mpidle::report {

namespace {

// "FROM:TO" in seconds from the run's first event; either side may be empty.
void parse_window(const std::string& text, ChromeSelection& s) {
  const auto colon = text.find(':');
  auto seconds_at = [&](const std::string& part, double fallback) {
    if (part.empty()) return fallback;
    char* end = nullptr;
    const double v = std::strtod(part.c_str(), &end);
    if (end != part.c_str() + part.size() || !std::isfinite(v) || v < 0) {
      throw UsageError("--window is FROM:TO in seconds from the run's start, e.g. 1.5:2");
    }
    return v;
  };
  if (colon == std::string::npos) {
    throw UsageError("--window is FROM:TO in seconds from the run's start, e.g. 1.5:2");
  }
  s.from_s = seconds_at(text.substr(0, colon), 0);
  s.to_s = seconds_at(text.substr(colon + 1), 1e300);
  if (s.to_s <= s.from_s) throw UsageError("--window: TO must be after FROM");
}

}  // namespace

int export_command(Args args) {
  std::string run, chrome, otf2;
  ChromeSelection selection;
  bool selecting = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--chrome" || a == "--otf2") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs an output path");
      (a == "--chrome" ? chrome : otf2) = args[++i];
    } else if (a == "--ranks" || a == "--window") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      selecting = true;
      if (a == "--window") {
        parse_window(args[++i], selection);
      } else {
        std::string error;
        selection.ranks = parse_rank_list(args[++i], error);
        if (!selection.ranks) throw UsageError("--ranks: " + error);
      }
    } else {
      take_positional(a, run, "run directory");
    }
  }
  if (run.empty()) throw UsageError("which run? (mpidle export RUN_DIR --chrome OUT.json)");
  if (chrome.empty() && otf2.empty()) {
    throw UsageError("which format? (--chrome OUT.json, --otf2 DIR)");
  }
  if (selecting && chrome.empty()) {
    throw UsageError("--ranks and --window select what --chrome writes");
  }
  if (!otf2.empty() && !otf2_available()) {
    throw UsageError(
        "--otf2: this mpidle was built without the OTF2 library (Debian: "
        "libotf2-trace-dev, then rebuild)");
  }
  const auto dir = run_directory(run);
  const auto profile = read_trace_run(dir);
  const model::StageLog progress("mpidle export", profile.trace->events);
  progress("reading");
  // Only the selected ranks' records are read (a trace can be larger than memory);
  // the trace holds its ranks in rank order.
  const model::Trace trace =
      selection.ranks && otf2.empty()
          ? model::read_trace_ranks(
                dir / profile.trace->file,
                [&](std::size_t position, std::size_t) {
                  return selection.ranks->count(static_cast<std::int32_t>(position)) > 0;
                })
          : model::read_trace(dir / profile.trace->file);
  progress("writing");
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
  const auto stats = write_chrome_trace(trace, out, selection);
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
