#pragma once
// Synchronizes a merged trace: linear offset interpolation per rank, then the
// controlled logical clock over the happened-before relation that the records
// imply (messages matched in MPI's non-overtaking order, collective instances).

#include <vector>

#include "controlled_clock.hpp"
#include "event_graph.hpp"
#include "model/trace_file.hpp"
#include "offset_model.hpp"
#include "trace_matching.hpp"

namespace mpidle::sync {

// Two events per record: enter (2i) and exit (2i + 1).
EventGraph build_event_graph(const model::Trace& trace);
EventGraph build_event_graph(const model::Trace& trace, const TraceMatching& matching);

// Each rank's records as [enter, exit, enter, exit, ...] on rank 0's timeline.
RankTimes interpolated_times(const model::Trace& trace, std::vector<OffsetModel>& models);
// The same for one rank.
OffsetModel offset_model_of(const model::RankTrace& rank);
std::vector<std::int64_t> interpolated_rank_times(const model::RankTrace& rank,
                                                  const OffsetModel& model);
// [enter, exit, ...] as recorded, on the rank's own clock.
std::vector<std::int64_t> raw_rank_times(const model::RankTrace& rank);

struct TraceSyncResult {
  ClcParams params;                  // as used: the measured latency filled in
  std::uint64_t violations_raw = 0;  // on the raw local timestamps, before any correction
  ClcStats clc;                      // violations_before: after interpolation, before the CLC
  std::vector<OffsetModel> models;   // by position in trace.ranks
  // Message matching: pairs found, and what found no partner (see TraceMatching).
  std::uint64_t messages = 0;
  std::uint64_t unmatched_sends = 0;
  std::uint64_t unmatched_receives = 0;
  std::uint64_t cancelled = 0;
};

// Fills trace.ranks[*].synced. params.min_latency_ns < 0 means: use the latency
// measured by the profiler (trace.min_latency_ns).
TraceSyncResult synchronize_trace(model::Trace& trace, ClcParams params);

}  // namespace mpidle::sync
