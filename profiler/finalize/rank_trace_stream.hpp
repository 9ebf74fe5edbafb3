#pragma once
// One rank's trace as it leaves the thread buffers at finalize: the threads'
// records merged in time order, ticks turned into nanoseconds, functions and
// callsites numbered in this rank's own tables, PAPI burst counts attached. The
// records go to a sink in bounded batches; nothing holds the rank's whole trace.

#include <cstdint>
#include <functional>
#include <span>

#include "model/trace_file.hpp"
#include "profiler/runtime/context.hpp"

namespace mpidle::profiler {

// Records in time order, and Trace::counter_names.size() counts per record (−1
// where unknown). At most kTraceBatchRecords records per call.
using TraceBatchSink = std::function<void(std::span<const model::TraceRecord> records,
                                          std::span<const std::int64_t> counters)>;

inline constexpr std::size_t kTraceBatchRecords = 65536;  // 4 MiB of records

// The rank's tables (functions, callsites, counter names) and one RankTrace whose
// records went to `sink` (its `records` stay empty).
model::Trace stream_rank_trace(Context& context, const model::ClockMeasurement& final,
                               const TraceBatchSink& sink);

// How many records the rank's buffers hold (before streaming them).
std::uint64_t buffered_trace_records(Context& context);

}  // namespace mpidle::profiler
