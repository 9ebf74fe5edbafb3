#pragma once
// Finalize in trace mode: every rank measures its final clock offset and streams
// its threads' records to rank 0 (trace_gather.hpp), compressing them into a loop
// summary on the way; the summaries merge over the binomial tree (identical
// summaries become one group of ranks); rank 0 composes the offsets, synchronizes
// (interpolation + controlled logical clock), writes trace.mpidle and
// summary.txt, and returns the "trace", "sync" and "summary" sections of
// profile.json.

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "compress/summary_set.hpp"
#include "context.hpp"
#include "model/trace_file.hpp"
#include "papi_probe.hpp"

namespace mpidle::profiler {

inline constexpr const char* kTraceFileName = "trace.mpidle";
inline constexpr const char* kSummaryFileName = "summary.txt";

struct GatheredTrace {
  model::Trace trace;
  compress::SummarySet summary;
};

// Collective over the profiler's communicator; rank 0 gets the merged trace.
std::optional<GatheredTrace> gather_trace(Context& context);

// Rank 0: offsets composed to rank 0 along the measurement tree.
void compose_offsets(model::Trace& trace);

// Rank 0: synchronizes and writes the trace and the summary; returns
// {"trace": …, "sync": …, "summary": …}.
nlohmann::json write_synchronized_trace(GatheredTrace& gathered, const std::filesystem::path& dir,
                                        const PapiStatus& papi, double gamma, bool detail_high);

}  // namespace mpidle::profiler
