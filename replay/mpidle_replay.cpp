// mpidle-replay: synchronizes an existing trace by a parallel replay, for traces
// from runs larger than one process can synchronize (`mpidle sync` does it in one
// process). Run with any number of processes P ≤ the run's ranks; each takes a
// block of ranks and reads only their records:
//   mpiexec -n P mpidle-replay RUN_DIR|TRACE [--output FILE] [--latency S] [--gamma G]
// The synchronized trace replaces the run's (or goes to --output), written in
// parallel with MPI-IO; in place, the run's profile.json gets the new "sync"
// section and analysis.json the wait states and their root causes, as `mpidle
// analyze` writes them (the root causes by a parallel backward pass:
// transport/root_causes_tree.hpp).
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_output.hpp"
#include "model/profile_reader.hpp"
#include "model/trace_file.hpp"
#include "sync/parallel_sync.hpp"
#include "sync/sync_report.hpp"
#include "transport/mpi_synchronize.hpp"
#include "transport/parallel_trace_writer.hpp"
#include "transport/root_causes_tree.hpp"
#include "transport/wait_states_tree.hpp"

namespace fs = std::filesystem;
using namespace mpidle;

namespace {

constexpr const char* kUsage =
    "usage: mpiexec -n P mpidle-replay RUN_DIR|TRACE [--output FILE] [--latency S] [--gamma G]";

struct Options {
  fs::path trace;
  std::optional<fs::path> profile;  // the run's profile.json, when given a run directory
  fs::path output;
  sync::ClcParams params;
};

class BadInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

double number(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw BadInput(option + " needs a number, not '" + text + "'");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  o.params.min_latency_ns = -1;  // as the profiler measured it
  std::string run;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw BadInput(a + " needs a value");
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      throw BadInput(kUsage);
    } else if (a == "--output" || a == "-o") {
      o.output = value();
    } else if (a == "--latency") {
      const double v = number(a, value());
      if (!(v >= 0 && v < 1)) throw BadInput("--latency is in seconds, from 0 to 1");
      o.params.min_latency_ns = static_cast<std::int64_t>(v * 1e9 + 0.5);
    } else if (a == "--gamma") {
      const double v = number(a, value());
      if (!(v > 0 && v <= 1)) throw BadInput("--gamma must be in (0, 1]");
      o.params.gamma = v;
    } else if (run.empty() && !a.starts_with("-")) {
      run = a;
    } else {
      throw BadInput("unexpected argument '" + a + "' (" + kUsage + ")");
    }
  }
  if (run.empty()) throw BadInput(std::string("which run? ") + kUsage);
  if (fs::is_directory(run)) {
    o.profile = fs::path(run) / "profile.json";
    const auto profile = model::read_profile(*o.profile);
    if (!profile.trace) throw BadInput(run + " is not a trace run (mpidle run --trace)");
    o.trace = fs::path(run) / profile.trace->file;
  } else {
    o.trace = run;
  }
  if (o.output.empty()) o.output = o.trace;
  return o;
}

// Whether every process got here without an error; else the first process that
// failed says why, in one line.
bool all_fine(const std::string& error, int me) {
  const int mine = error.empty() ? INT_MAX : me;
  int first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT_MAX) return true;
  if (first == me) std::fprintf(stderr, "mpidle-replay: %s\n", error.c_str());
  return false;
}

int run_replay(int me, int processes, int argc, char** argv) {
  Options options;
  model::Trace trace;  // tables, every rank's header, this process' ranks' records
  std::string error;
  try {
    options = parse(argc, argv);
    trace = model::read_trace_ranks(options.trace, [&](std::size_t position, std::size_t ranks) {
      return static_cast<int>(position * static_cast<std::size_t>(processes) / ranks) == me;
    });
    if (trace.ranks.empty()) throw BadInput(options.trace.string() + " holds no ranks");
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!all_fine(error, me)) return 2;

  std::vector<std::int32_t> world;
  for (const auto& r : trace.ranks) world.push_back(r.rank);
  const sync::ReplayDirectory directory = sync::block_directory(world, processes);
  std::vector<model::RankTrace*> mine;
  std::vector<const model::RankTrace*> mine_to_write;
  for (auto& r : trace.ranks) {
    if (directory.process_of(r.rank) == me) {
      mine.push_back(&r);
      mine_to_write.push_back(&r);
    }
  }
  const double started = MPI_Wtime();
  auto [result, partners, complete_collectives] = transport::synchronize_over_mpi(
      MPI_COMM_WORLD, mine, directory, options.params, trace.min_latency_ns);
  // The wait states of the run, as `mpidle analyze` finds them, for analysis.json.
  std::vector<std::uint32_t> positions;
  for (const auto* r : mine_to_write)
    positions.push_back(static_cast<std::uint32_t>(directory.position_of(r->rank)));
  auto warn = [](const std::string& what) {
    std::fprintf(stderr, "mpidle-replay: %s\n", what.c_str());
  };
  std::vector<analysis::ReplayRank> delay_inputs;
  const auto waits =
      transport::gather_wait_states(MPI_COMM_WORLD, trace, mine_to_write, positions, partners,
                                    complete_collectives, warn, {}, &delay_inputs);
  // Why it waited: the delay analysis, backward over the same processes.
  const auto delays = transport::gather_root_causes(MPI_COMM_WORLD, trace, std::move(delay_inputs),
                                                    directory, warn);
  const double replayed = MPI_Wtime();

  fs::path partial = options.output;
  partial += ".replay-partial";
  transport::write_trace_parallel(MPI_COMM_WORLD, partial, trace, trace.ranks.size(),
                                  mine_to_write);
  error.clear();
  if (me == 0) {
    try {
      fs::rename(partial, options.output);
      if (options.profile && options.output == options.trace) {
        result.models.clear();
        for (const auto& r : trace.ranks) {
          result.models.push_back(sync::offset_model_of(r, result.params.raw_clocks));
        }
        sync::rewrite_sync_section(*options.profile, sync::sync_section(trace, result));
        if (waits) {
          analysis::write_analysis(options.profile->parent_path(),
                                   model::read_profile(*options.profile), trace, *waits, nullptr,
                                   delays ? &*delays : nullptr);
        }
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (!all_fine(error, me)) return 1;
  if (me == 0) {
    std::printf("mpidle-replay: %s: %zu ranks on %d processes, replay %.3g s, written %.3g s: %s\n",
                options.output.c_str(), trace.ranks.size(), processes, replayed - started,
                MPI_Wtime() - replayed, sync::sync_outcome(result).c_str());
    if (const auto warning = sync::unmatched_warning(result); !warning.empty()) {
      std::fprintf(stderr, "mpidle-replay: warning: %s\n", warning.c_str());
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, processes = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  int status = 1;
  try {
    status = run_replay(me, processes, argc, argv);
  } catch (const std::exception& e) {
    // A failure inside the replay or the writer: the other processes may be
    // waiting for this one, so the job ends here.
    std::fprintf(stderr, "mpidle-replay (process %d): %s\n", me, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
