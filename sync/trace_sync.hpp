#pragma once
// Synchronizes a merged trace: linear offset interpolation per rank, then the
// controlled logical clock over the happened-before relation that the records
// imply (messages matched in MPI's non-overtaking order, collective instances).

#include <string>
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

// Each rank's records as [enter, exit, enter, exit, ...] on rank 0's timeline
// (`raw_clocks`: as recorded, with identity models).
RankTimes interpolated_times(const model::Trace& trace, std::vector<OffsetModel>& models,
                             bool raw_clocks = false);
// Whether both of a rank's offset measurements allow offset 0 (Cristian's bound:
// the true offset lies within half the round trip of the measured one): then the
// rank reads rank 0's clock (one host, one system-wide clock), and correcting by
// the measurements' noise would only add error.
bool reads_reference_clock(const model::RankTrace& rank);
// The rank's linear offset model; the identity when it reads rank 0's clock, or
// when the synchronization keeps the raw clocks.
OffsetModel offset_model_of(const model::RankTrace& rank, bool raw_clocks = false);
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
  // The shortest matched message (receive exit − send enter), or collective (a
  // member's exit − the latest enter it waits for), in raw and in corrected
  // times, those that violate the clock condition left out; INT64_MAX without any.
  std::int64_t min_gap_raw_ns = INT64_MAX;
  std::int64_t min_gap_corrected_ns = INT64_MAX;
  // What sync/clock_plan decided, and why.
  std::int64_t measured_min_latency_ns = 0;
  std::uint64_t violations_with_offsets = 0;  // what the offsets gave, when rejected
  std::string clock_reason;
  std::string latency_reason;
};

// Fills trace.ranks[*].synced. params.min_latency_ns < 0 means: use the latency
// measured by the profiler (trace.min_latency_ns). Checks the offsets and the
// latency against the trace and synchronizes once more when they do not hold
// (sync/clock_plan.hpp).
TraceSyncResult synchronize_trace(model::Trace& trace, ClcParams params);
// One synchronization with `params` as given, nothing checked.
TraceSyncResult synchronize_trace_once(model::Trace& trace, const ClcParams& params);

}  // namespace mpidle::sync
