#pragma once
// Finalize in trace mode, on every rank: no rank receives another's records.
//  1. Each rank measures its final clock offset and takes its own records out of
//     its buffers (threads merged in time order). Past MPIDLE_TRACE_MEM, its
//     per-record arrays are files mapped shared from here on (out of core).
//  2. Function and callsite tables merge up the binomial tree; rank 0 symbolizes
//     them (one callsite per source line) and sends them back down; each rank
//     renumbers its records.
//  3. Offsets compose to rank 0 down the measurement tree.
//  4. The ranks synchronize their events together by a parallel replay
//     (sync/parallel_sync: interpolation + controlled logical clock, the same
//     timestamps as the sequential clock) and write their sections of
//     trace.mpidle with MPI-IO (transport/parallel_trace_writer).
//  5. Each rank finds its own wait states from what the replay brought of its
//     partners (analysis/rank_waits); they merge up the tree.
//  6. Each rank summarizes its loops; the summaries merge up the tree.
// Rank 0 writes summary.txt and gets the "trace", "sync" and "summary" sections of
// profile.json from per-rank figures of fixed size, and the run's wait states for
// analysis.json.

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "analysis/wait_states.hpp"
#include "model/calibration.hpp"
#include "model/trace_file.hpp"
#include "profiler/finalize/finalize_memory.hpp"
#include "profiler/runtime/context.hpp"
#include "profiler/runtime/papi_probe.hpp"

namespace mpidle::profiler {

inline constexpr const char* kTraceFileName = "trace.mpidle";
inline constexpr const char* kSummaryFileName = "summary.txt";

struct FinishedTrace {
  nlohmann::json sections;     // "trace", "sync", "summary"
  model::Trace headers;        // the trace's tables and its ranks' headers
  analysis::WaitStates waits;  // the whole run's
  std::uint64_t events = 0;    // records of the whole run
  // What each rank's finalize added to its memory at its peak, by rank.
  struct FinalizeMemoryAdded {
    std::uint64_t bytes = 0, anonymous_bytes = 0;  // the part of it in anonymous memory
  };
  std::vector<FinalizeMemoryAdded> finalize_memory_by_rank;
};

// Collective over the profiler's communicator. `dir`: the run directory, the same
// on every rank and reachable from every rank. Rank 0 gets the result (or nothing
// when the trace could not be written: every rank then warned or agreed).
// `memory` is sampled between the stages. Every rank gets the calibration of the
// profile's baselines from every call of the trace in `calibration`, and with
// MPIDLE_WINDOW_CHECK the calibration from the windows' part of it in `window_check`.
std::optional<FinishedTrace> finish_trace(Context& context, const std::filesystem::path& dir,
                                          const PapiStatus& papi, double gamma, bool detail_high,
                                          FinalizeMemory& memory, model::Calibration& calibration,
                                          model::Calibration& window_check);

}  // namespace mpidle::profiler
