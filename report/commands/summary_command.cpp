// mpidle summary: the loop summary of a trace run, as summary.txt shows it, with
// per-symbol timings on request; --symbols re-summarizes the trace file with
// other symbols (peer, size class) than the run used.
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "compress/summary_json.hpp"
#include "compress/summary_text.hpp"
#include "compress/trace_symbols.hpp"
#include "model/profile_reader.hpp"
#include "model/stage_log.hpp"
#include "model/trace_file.hpp"
#include "report/commands/command.hpp"

namespace mpidle::report {
namespace {

namespace fs = std::filesystem;

std::int32_t rank_option(const std::string& text) {
  std::int32_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < 0) {
    throw UsageError("--rank needs a rank number, not \"" + text + "\"");
  }
  return v;
}

nlohmann::json summary_section(const fs::path& dir) {
  const fs::path file = dir / "profile.json";
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file.string());
  nlohmann::json doc = model::read_json(in);
  if (doc.is_discarded()) throw UsageError(file.string() + " is not JSON");
  if (!doc.is_object() || !doc.contains("summary")) {
    throw UsageError(file.string() +
                     " has no loop summary: it is not a trace run (mpidle run --trace)");
  }
  return doc["summary"];
}

}  // namespace

int summary_command(Args args) {
  std::string run;
  compress::TextOptions options;
  std::optional<compress::SymbolOptions> symbols;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--detail" || a == "--rank" || a == "--symbols") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      const std::string& v = args[++i];
      if (a == "--detail") {
        if (v != "low" && v != "high")
          throw UsageError("--detail is low or high, not \"" + v + "\"");
        options.detail = v == "high" ? compress::Detail::high : compress::Detail::low;
      } else if (a == "--rank") {
        options.rank = rank_option(v);
      } else {
        symbols = compress::parse_symbol_options(v);
        if (!symbols)
          throw UsageError("--symbols is callsite, peer, size or peer,size, not \"" + v + "\"");
      }
    } else {
      take_positional(a, run, "run directory");
    }
  }
  if (run.empty()) throw UsageError("which run? (mpidle summary RUN_DIR)");
  const fs::path dir = run_directory(run);
  compress::SummarySet set;
  if (symbols) {
    const auto profile = read_trace_run(dir);
    const model::StageLog progress("mpidle summary", profile.trace->events);
    progress("reading");
    const model::Trace trace = model::read_trace(dir / profile.trace->file);
    progress("summarizing");
    set = compress::summarize_trace(trace, *symbols);
  } else {
    // Says so when records were lost: the summary is short. The summary is in
    // profile.json: the trace file is not needed.
    (void)read_trace_run(dir, TraceFile::unread);
    set = compress::summary_from_json(summary_section(dir));
  }
  if (options.rank) {
    bool known = false;
    for (const auto& g : set.groups) {
      for (auto r : g.ranks) known = known || r == *options.rank;
    }
    if (!known) throw UsageError("rank " + std::to_string(*options.rank) + " is not in this run");
  }
  std::fputs(compress::render_summary_text(set, options).c_str(), stdout);
  return 0;
}

}  // namespace mpidle::report
