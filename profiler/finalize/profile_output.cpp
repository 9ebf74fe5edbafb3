#include "profiler/finalize/profile_output.hpp"

#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <system_error>
#include <unordered_map>

#include "analysis/analysis_output.hpp"
#include "analysis/prediction.hpp"
#include "fleet/records/job_metadata.hpp"
#include "fleet/records/job_record.hpp"
#include "model/callsite_merge.hpp"
#include "model/file_replace.hpp"
#include "model/profile_reader.hpp"
#include "model/profile_summary.hpp"
#include "model/profile_writer.hpp"
#include "model/trace_file.hpp"
#include "profiler/core/log.hpp"
#include "profiler/finalize/local_tables.hpp"
#include "profiler/finalize/trace_output.hpp"
#include "profiler/finalize/tree_reduce.hpp"
#include "profiler/finalize/window_calibration.hpp"
#include "profiler/runtime/symbolizer.hpp"
#include "profiler/wrappers/real_function.hpp"
#include "sync/trace_matching.hpp"

namespace mpidle::profiler {
namespace {

namespace fs = std::filesystem;

// γ of the controlled logical clock at finalize; `mpidle sync --gamma` redoes it.
constexpr double kDefaultGamma = 0.99999;

std::vector<std::string> command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
  return args;
}

RealFunction<decltype(&PMPI_Get_library_version)> real_get_library_version{
    "PMPI_Get_library_version"};

std::string mpi_library() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (call_real(real_get_library_version, version, &length) != MPI_SUCCESS) return "unknown";
  std::string text(version, static_cast<std::size_t>(std::max(0, length)));
  text = text.substr(0, text.find('\n'));
  for (char& c : text) c = c == '\t' ? ' ' : c;
  // "MPICH Version:    4.0.2" reads better as "MPICH Version: 4.0.2".
  for (std::size_t pos; (pos = text.find("  ")) != std::string::npos;) text.erase(pos, 1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\0')) {
    text.pop_back();
  }
  return text;
}

// Cost of one call's bookkeeping (two clock reads and a table update), and of an
// untimed poll's (the table update alone), measured here so that the report can
// state the profiler's own share of the run.
struct CallOverhead {
  double timed_s = 0;
  double untimed_s = 0;
};
CallOverhead per_call_overhead(const TickRate& rate) {
  constexpr int kCalls = 20000;
  CallTable scratch(1024);
  CallOverhead o;
  Ticks begin = now();
  for (int i = 0; i < kCalls; ++i) {
    const Ticks t0 = now();
    const Ticks t1 = now();
    scratch.add(CallKey{static_cast<std::uintptr_t>(i & 63), 1, 3, 1}, t1 - t0, 8);
  }
  o.timed_s = rate.seconds(now() - begin) / kCalls;
  begin = now();
  for (int i = 0; i < kCalls; ++i) {
    scratch.add(CallKey{static_cast<std::uintptr_t>(i & 63), 1, -1, 1}, kUntimed, 0);
  }
  o.untimed_s = rate.seconds(now() - begin) / kCalls;
  return o;
}

// The process' peak resident memory so far (Linux reports KiB).
std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

bool write_file(const fs::path& path, const std::vector<std::byte>& bytes) {
  std::string error;
  return model::replace_file(
      path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), error);
}

fs::path run_directory(const Context& context, const std::string& executable) {
  if (!context.config().output.empty()) return context.config().output;
  std::tm tm{};
  const std::time_t start = context.start_time();
  localtime_r(&start, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return "mpidle-" + fs::path(executable).filename().string() + "-" + stamp;
}

// The "run" section's facts: the program, the MPI, the clock, the estimate shown.
model::RunInfo describe_run(Context& context, const model::ProfileSummary& summary,
                            const CallOverhead& per_call, const model::Calibration& calibration,
                            bool trace, const char* ended) {
  const auto args = command_line();
  model::RunInfo run;
  run.executable = executable_path();
  run.args.assign(args.size() > 1 ? args.begin() + 1 : args.end(), args.end());
  run.mpi_library = mpi_library();
  run.start = context.start_iso();
  run.wall_s = summary.ranks.empty() ? 0.0 : summary.ranks.front().wall_s;
  run.timer = timer_name(selected_timer());
  run.timer_resolution_s = context.tick_rate().resolution_s();
  run.wait_estimate = context.config().global_min ? "global" : context.config().wait_estimate;
  // Calibrated where windows (or the whole trace) calibrated a key; without any
  // such key the profile is the robust estimate's, and says so.
  if (run.wait_estimate == "calibrated" && !model::calibrated_keys(calibration)) {
    run.wait_estimate = "robust";
  }
  run.callsite_depth = static_cast<std::int32_t>(context.config().callsite_depth);
  run.per_call_overhead_s = per_call.timed_s;
  run.per_untimed_call_overhead_s = per_call.untimed_s;
  run.setup_s = context.setup_s();
  run.built_for_mpi = MPIDLE_BUILT_FOR_MPI;
  if (trace) run.mode = "trace";
  run.ended = ended;
  return run;
}

// What the finalize tree cost, as rank 0 saw it (docs/profile-format.md, run.finalize).
struct FinalizeCost {
  TreeTraffic minima, summary;
  double seconds = 0;
  std::uint64_t started_ns = 0;      // when rank 0 began its finalize (0: a partial profile)
  std::uint64_t started_cpu_ns = 0;  // its thread's CPU time then
};

// profile.json's "job" section: the batch job, the user, the executable's identity
// and the user's own pairs (rank 0, at the end of the run).
nlohmann::json job_section(const Context& context, const model::ProfileSummary& summary,
                           const std::string& executable, const std::string& mpi_library) {
  auto job = fleet::detect_job(settings::environment_variable, process_user());
  job.executable = executable;
  job.executable_id = fleet::executable_identity(executable);
  std::vector<std::string> warnings;
  job.user_metadata = fleet::parse_user_metadata(context.config().metadata, warnings);
  for (const auto& w : warnings) warn(w);
  std::vector<std::string> hosts;
  hosts.reserve(summary.ranks.size());
  for (const auto& r : summary.ranks) hosts.push_back(r.host);
  return fleet::job_json(job, hosts, context.start_iso(), iso_utc(std::time(nullptr)), mpi_library);
}

// Rank 0's time for profile mode's windows at finalize, and the part of it that
// measured the clocks' offsets.
struct WindowsCost {
  double seconds = 0, cpu_seconds = 0, offsets_seconds = 0;
};

// In trace mode: the trace's sections of profile.json (rank 0), or none when the
// trace could not be written.
struct TraceSections {
  std::optional<FinishedTrace> finished;
  double seconds = 0;
  nlohmann::json window_check;  // MPIDLE_WINDOW_CHECK, on rank 0
};

// Trace mode's window check: every rank's wait as the calibration from the windows'
// part of the trace alone gives it (the robust estimate where that calibrated no
// key), per function, summed to rank 0 in one reduction of the function table.
nlohmann::json window_check_section(Context& context, const model::ProfileTables& local,
                                    const model::GlobalMinima& global,
                                    const model::Calibration& check) {
  std::vector<double> waits(kMpiFnCount, 0.0);
  const model::ProfileSummary s = model::summarize_rank(local, global, &check);
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < kMpiFnCount; ++i) index.emplace(kMpiFnNames[i], i);
  for (std::size_t f = 0; f < s.function_totals.size() && f < s.functions.size(); ++f) {
    auto it = index.find(s.functions[f]);
    if (it != index.end()) waits[it->second] += s.function_totals[f].wait_s_calibrated;
  }
  const int root_rank = 0;
  PMPI_Reduce(context.rank() == root_rank ? MPI_IN_PLACE : waits.data(), waits.data(),
              static_cast<int>(waits.size()), MPI_DOUBLE, MPI_SUM, root_rank, context.own_comm());
  if (context.rank() != root_rank || check.source.empty()) return nullptr;
  nlohmann::json out = model::calibration_json(check, global);
  nlohmann::json functions = nlohmann::json::object();
  double total = 0;
  for (std::size_t i = 0; i < kMpiFnCount; ++i) {
    if (waits[i] <= 0) continue;
    functions[kMpiFnNames[i]] = waits[i];
    total += waits[i];
  }
  out["wait_s"] = total;
  out["functions"] = std::move(functions);
  return out;
}

// POP's serialization and transfer efficiencies need the run replayed on an ideal
// network, and the root causes of its wait states a backward pass over every wait
// state (analysis/delay_analysis.hpp); both read the whole trace in one process:
// rank 0 does them at finalize for traces up to this many events, as `mpidle
// analyze` would (larger ones: analyze).
constexpr std::uint64_t kFinalizeWholeTraceEvents = 1'000'000;

struct WholeTraceAnalysis {
  model::PopEfficiency efficiency;
  analysis::DelayAnalysis delays;
};

std::optional<WholeTraceAnalysis> whole_trace_analysis(const fs::path& dir,
                                                       const model::Profile& profile,
                                                       std::uint64_t events) {
  if (events > kFinalizeWholeTraceEvents || !profile.trace) return std::nullopt;
  const model::Trace trace = model::read_trace(dir / profile.trace->file);
  const auto matching = sync::match_trace(trace);
  return WholeTraceAnalysis{analysis::with_ideal_network(trace, matching, profile.efficiency),
                            analysis::analyze_delays(trace, matching)};
}

// A checkpoint names its callsites within this much time (the MPI call that writes
// it waits meanwhile): a frame costs 0.1 to 0.6 ms the first time (libdw), nothing
// once named, so each checkpoint names more; the rest keep their module and offset
// until then, and the finalize names all.
constexpr std::uint64_t kCheckpointSymbolsNs = 100'000'000;
constexpr std::size_t kSymbolsChunk = 64;

void symbolize_within(std::vector<model::Callsite>& callsites, std::uint64_t budget_ns) {
  const std::uint64_t start = monotonic_ns();
  for (std::size_t first = 0; first < callsites.size(); first += kSymbolsChunk) {
    if (monotonic_ns() - start > budget_ns) return;
    const std::size_t last = std::min(callsites.size(), first + kSymbolsChunk);
    std::vector<model::Callsite> chunk(std::make_move_iterator(callsites.begin() + first),
                                       std::make_move_iterator(callsites.begin() + last));
    symbolize(chunk);  // a module it cannot read is said at the finalize, if at all
    std::move(chunk.begin(), chunk.end(), callsites.begin() + first);
  }
}

// `dir` was created already; `ec` says why not, if it could not be.
void write_run_directory(Context& context, model::ProfileSummary& summary, CallOverhead per_call,
                         const fs::path& dir, std::error_code ec, const TraceSections* trace,
                         const FinalizeCost& cost, const model::Calibration& calibration,
                         const WindowsCost& windows, const char* ended = "MPI_Finalize",
                         bool announce = true) {
  if (context.config().symbolize) {
    if (const std::string failed = symbolize(summary.callsites); !failed.empty()) warn(failed);
  }
  // One callsite per source line, however often the compiler duplicated the call.
  model::merge_alike_callsites(summary);
  const model::RunInfo run = describe_run(context, summary, per_call, calibration, trace, ended);
  const std::string& executable = run.executable;
  auto document = model::build_profile(summary, run);
  auto& json = document.profile;
  if (!calibration.source.empty()) {
    json["calibration"] = model::calibration_json(calibration, summary.minima);
    model::add_window_causes(json, calibration);
    if (windows.seconds > 0) {
      json["calibration"]["finalize_s"] = windows.seconds;
      json["calibration"]["finalize_cpu_s"] = windows.cpu_seconds;
      json["calibration"]["offsets_s"] = windows.offsets_seconds;
    }
  }
  if (trace && !trace->window_check.is_null() && json.contains("calibration")) {
    json["calibration"]["window_check"] = trace->window_check;
  }
  json["job"] = job_section(context, summary, executable, run.mpi_library);
  json["run"]["finalize"] = {
      {"rounds", cost.summary.rounds},
      {"seconds", cost.seconds},
      {"bytes_received", cost.minima.bytes_received + cost.summary.bytes_received},
      {"largest_message_bytes",
       std::max(cost.minima.largest_message, cost.summary.largest_message)},
      {"rank0_peak_rss_bytes", peak_rss_bytes()}};
  if (cost.started_ns > 0) {
    // Everything rank 0 did in MPI_Finalize before writing the run directory: the
    // trace or its windows, the trees, symbolization.
    json["run"]["finalize"]["total_s"] =
        static_cast<double>(monotonic_ns() - cost.started_ns) * 1e-9;
    json["run"]["finalize"]["total_cpu_s"] =
        static_cast<double>(thread_cpu_ns() - cost.started_cpu_ns) * 1e-9;
  }

  if (trace && trace->finished) {
    auto sections = trace->finished->sections;
    json["trace"] = std::move(sections["trace"]);
    // Trace mode's whole finalize (records out of the buffers, tables, replay,
    // writing, summaries), as rank 0 saw it.
    json["trace"]["merge_s"] = trace->seconds;
    json["sync"] = std::move(sections["sync"]);
    json["summary"] = std::move(sections["summary"]);
  }
  // The side files first: a profile.json that exists has them (or says why not).
  const bool matrix_written = write_file(dir / model::kRankMatrixFile, document.rank_matrix);
  // Each file written whole and never through a link (model/file_replace.hpp).
  std::string error;
  const bool minima_written =
      model::replace_file(dir / model::kRankMinimaFile, document.rank_minima, error);
  // The fleet's compact record of the run, first, as the other side files: a profile.json that
  // exists has it.
  const fs::path record = dir / fleet::kJobRecordFile;
  const bool record_written =
      model::replace_file(record, fleet::job_record(json).dump(1) + '\n', error);
  const fs::path file = dir / "profile.json";
  if (!model::replace_file(file, json.dump(1) + '\n', error)) {
    const std::string why = ec ? ec.message() : error;
    warn("cannot write " + file.string() + " (" + why + ")" +
         (trace ? "; no profile or trace for this run" : "; no profile for this run"));
    return;
  }
  // Said only once profile.json is there: a full disk or a missing directory is
  // said once, with the profile.
  if (!record_written) {
    warn("cannot write " + record.string() + "; the fleet will build the record from profile.json");
  }
  if (!matrix_written || !minima_written) {
    warn("cannot write " +
         (dir / (matrix_written ? model::kRankMinimaFile : model::kRankMatrixFile)).string() +
         "; the profile lacks that per-rank detail");
  }
  if (run.ended == "MPI_Finalize") {
    // In a log tree the run is published (renamed into place) after this: the
    // line then names its final place.
    if (!context.log_location().run) warn("profile written to " + file.string());
  } else if (announce) {
    warn("this rank ended without MPI_Finalize (" + run.ended + "): its partial profile is in " +
         dir.string());
  }
  if (trace && trace->finished) {
    // The exact wait states next to the minimum method's estimates: analysis.json,
    // as `mpidle analyze` writes it.
    try {
      const auto written = model::read_profile(dir);
      const auto whole = whole_trace_analysis(dir, written, trace->finished->events);
      analysis::write_analysis(dir, written, trace->finished->headers, trace->finished->waits,
                               whole ? &whole->efficiency : nullptr,
                               whole ? &whole->delays : nullptr);
    } catch (const std::exception& e) {
      warn(std::string("no analysis.json: ") + e.what());
    }
  }
}

// `mpidle run` with MPIDLE_LOG_DIR learns where its run went (MPIDLE_RUN_DIR_FILE).
void tell_launcher(const Context& context, const fs::path& run_directory) {
  const std::string& file = context.config().run_dir_file;
  if (file.empty()) return;
  std::ofstream out(file, std::ios::trunc);
  out << run_directory.string() << '\n';
}

// Rank 0, the run whole: into its place in the log tree, whole or not at all.
void publish_run(const Context& context, const fleet::LogRun& run) {
  std::error_code ec;
  if (!fs::exists(run.staging / "profile.json", ec)) return;  // said why already
  std::string error;
  const fs::path published = fleet::publish_log_run(run, error);
  if (published.empty()) {
    warn("MPIDLE_LOG_DIR: " + error);
    return;
  }
  warn("profile written to " + (published / "profile.json").string());
  tell_launcher(context, published);
}

}  // namespace

std::string publish_partial_profile(Context& context, const std::string& dir, const char* ended,
                                    bool announce) {
  const auto& run = context.log_location().run;
  if (!run) return dir;
  std::string error;
  const fs::path published = fleet::publish_partial_rank(*run, dir, error);
  if (published.empty()) {
    warn("MPIDLE_LOG_DIR: " + error);
    return dir;
  }
  if (announce) {
    warn(std::string("this rank ended without MPI_Finalize (") + ended +
         "): its partial profile is in " + published.string());
  }
  tell_launcher(context, published.parent_path().parent_path());
  return published.string();
}

void finalize_profile(Context& context) {
  FinalizeMemory memory;
  const std::uint64_t finalize_start = monotonic_ns();
  const std::uint64_t finalize_start_cpu = thread_cpu_ns();
  const double wall_s = static_cast<double>(finalize_start - context.start_ns()) * 1e-9;
  context.tick_rate().finish();
  const std::uint64_t untracked = context.requests().dropped() + context.messages().dropped();
  auto local = collect_local_tables(
      context.threads(), context.tick_rate(),
      RankIdentity{context.rank(), context.host(), wall_s, untracked, context.regions().paths()});
  if (untracked > 0) {
    warn(std::to_string(untracked) +
         " requests found no slot in the request table; their completions have no peer or "
         "received bytes (raise MPIDLE_REQUEST_ENTRIES)");
  }
  if (context.config().verbose >= 2) warn("finalize: local tables collected");
  std::uint64_t dropped = local.ranks.empty() ? 0 : local.ranks.front().dropped_calls;
  if (dropped > 0) {
    warn(std::to_string(dropped) +
         " calls were not recorded because the call table was full (raise MPIDLE_TABLE_ENTRIES)");
  }
  // The run directory, named by rank 0; in trace mode every rank writes its part
  // of the trace there.
  fs::path dir;
  std::error_code dir_error;
  const bool unusable = context.log_location().unusable;
  if (context.rank() == 0 && !unusable) {
    dir = run_directory(context, executable_path());
    fs::create_directories(dir, dir_error);
  }
  // The trace (or profile mode's windows) first: its exact analysis calibrates the
  // baselines every rank's summary is measured against.
  context.trace_clock().refine();
  TraceSections trace;
  WindowsCost windows_cost;
  model::Calibration calibration, window_check;
  if (context.trace_windows_on()) {
    const std::uint64_t windows_start = monotonic_ns();
    const std::uint64_t windows_start_cpu = thread_cpu_ns();
    try {
      calibration = calibrate_from_windows(context, memory, &windows_cost.offsets_seconds);
    } catch (const std::exception& e) {
      warn(std::string("no calibration from the trace windows: ") + e.what());
    }
    windows_cost.seconds = static_cast<double>(monotonic_ns() - windows_start) * 1e-9;
    windows_cost.cpu_seconds = static_cast<double>(thread_cpu_ns() - windows_start_cpu) * 1e-9;
  }
  if (context.config().trace) {
    TreeTraffic traffic;
    // A directory rank 0 could not create cannot hold the trace either: the ranks
    // skip it together, and the profile's one line says why.
    const fs::path shared =
        text_of(tree_broadcast(bytes_of(dir_error || unusable ? std::string() : dir.string()),
                               context.own_comm(), traffic));
    const std::uint64_t trace_start = monotonic_ns();
    try {
      if (!shared.empty()) {
        trace.finished = finish_trace(context, shared, context.papi(), kDefaultGamma,
                                      context.config().summary_detail == "high", memory,
                                      calibration, window_check);
      }
    } catch (const std::exception& e) {
      warn(std::string("could not write the trace: ") + e.what());
    }
    trace.seconds = static_cast<double>(monotonic_ns() - trace_start) * 1e-9;
  }
  // Two passes over one binomial tree: the global minima (up and back down), then
  // every rank's summary against them (up), merged wherever two subtrees meet.
  FinalizeCost cost;
  cost.started_ns = finalize_start;
  cost.started_cpu_ns = finalize_start_cpu;
  const std::uint64_t tree_start = monotonic_ns();
  // The windows' calibration is summed in the same rounds as the minima.
  const bool windows = context.trace_windows_on();
  const model::GlobalMinima global = allreduce_minima(
      model::minima_of(local), windows ? &calibration : nullptr, context.own_comm(), cost.minima);
  if (windows && context.rank() == 0 && calibration.windows_cut > 0) {
    warn(std::to_string(calibration.windows_cut) +
         " ranks filled their trace window buffer (MPIDLE_WINDOW_MEM); their later windows were "
         "not recorded");
  }
  auto merged = reduce_summary(model::summarize_rank(local, global, &calibration),
                               context.own_comm(), cost.summary);
  cost.seconds = static_cast<double>(monotonic_ns() - tree_start) * 1e-9;
  if (merged) merged->minima = global;
  // Every rank takes part (the trace was finished or skipped by all together).
  if (context.window_check_on()) {
    trace.window_check = window_check_section(context, local, global, window_check);
  }
  const int undecodable = cost.minima.undecodable + cost.summary.undecodable;
  if (undecodable > 0) {
    warn(std::to_string(undecodable) + " subtrees of ranks sent unreadable tables; left out");
  }
  if (merged && trace.finished) {
    const auto& added = trace.finished->finalize_memory_by_rank;
    for (auto& row : merged->ranks) {
      const auto r = static_cast<std::size_t>(row.rank);
      if (row.rank < 0 || r >= added.size()) continue;
      row.finalize_memory_bytes = added[r].bytes;
      row.memory_bytes += added[r].bytes;
      row.finalize_anonymous_bytes = added[r].anonymous_bytes;
    }
  }
  if (merged && !unusable) {
    // Measured by rank 0 alone, which writes it: 40,000 table updates on every rank
    // would take turns on the cores of an oversubscribed node.
    write_run_directory(context, *merged, per_call_overhead(context.tick_rate()), dir, dir_error,
                        context.config().trace ? &trace : nullptr, cost, calibration, windows_cost);
    // The whole profile holds everything the checkpoints held (every rank stopped
    // writing them before the trees).
    std::error_code ignored;
    if (fs::exists(dir / "profile.json", ignored)) {
      fs::remove_all(dir / model::kCheckpointDirectory, ignored);
    }
    if (const auto& log_run = context.log_location().run) publish_run(context, *log_run);
  }
}

// This rank's tables so far, summarized against its own minima, which stand for the
// global ones: no other rank can be asked (a checkpoint, a partial profile).
struct OwnSummary {
  double wall_s = 0;
  model::GlobalMinima minima;
  model::ProfileSummary summary;
};
OwnSummary own_summary(Context& context) {
  OwnSummary own;
  own.wall_s = static_cast<double>(monotonic_ns() - context.start_ns()) * 1e-9;
  context.tick_rate().finish();
  const std::uint64_t untracked = context.requests().dropped() + context.messages().dropped();
  const auto local = collect_local_tables(context.threads(), context.tick_rate(),
                                          RankIdentity{context.rank(), context.host(), own.wall_s,
                                                       untracked, context.regions().paths()});
  own.minima = model::minima_of(local);
  own.summary = model::summarize_rank(local, own.minima);
  return own;
}

model::Checkpoint rank_checkpoint(Context& context, const char* ended) {
  OwnSummary own = own_summary(context);
  const double wall_s = own.wall_s;
  model::Checkpoint c;
  c.minima = std::move(own.minima);
  c.summary = std::move(own.summary);
  if (context.config().symbolize) symbolize_within(c.summary.callsites, kCheckpointSymbolsNs);
  // Measured once per process: 40,000 table updates at every checkpoint would show.
  static const CallOverhead per_call = per_call_overhead(context.tick_rate());
  c.header.rank = context.rank();
  c.header.size = context.size();
  c.header.wall_s = wall_s;
  c.header.ended = ended;
  c.header.run = describe_run(context, c.summary, per_call, model::Calibration{},
                              context.config().trace, ended);
  c.header.job = job_section(context, c.summary, c.header.run.executable, c.header.run.mpi_library);
  return c;
}

std::filesystem::path run_directory_of(const Context& context) {
  return run_directory(context, executable_path());
}

std::string write_partial_profile(Context& context, const char* ended, bool announce) {
  if (context.log_location().unusable) return {};
  OwnSummary own = own_summary(context);
  model::ProfileSummary& summary = own.summary;
  summary.minima = std::move(own.minima);
  const fs::path dir = run_directory(context, executable_path()) / "partial" /
                       ("rank-" + std::to_string(context.rank()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  write_run_directory(context, summary, per_call_overhead(context.tick_rate()), dir, ec, nullptr,
                      FinalizeCost{}, model::Calibration{}, WindowsCost{}, ended, announce);
  return dir.string();
}

}  // namespace mpidle::profiler
