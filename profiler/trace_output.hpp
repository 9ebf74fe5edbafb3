#pragma once
// Finalize in trace mode: every rank measures its final clock offset and folds its
// threads' records into one rank trace; the traces merge over the binomial tree;
// rank 0 composes the offsets to itself, synchronizes (interpolation + controlled
// logical clock), writes trace.mpidle and returns the "trace" and "sync" sections
// of profile.json.

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "model/trace_file.hpp"
#include "papi_probe.hpp"

namespace mpidle::profiler {

inline constexpr const char* kTraceFileName = "trace.mpidle";

// Collective over the profiler's communicator; rank 0 gets the merged trace.
std::optional<model::Trace> gather_trace(Context& context);

// Rank 0: offsets composed to rank 0 along the measurement tree.
void compose_offsets(model::Trace& trace);

// Rank 0: synchronizes and writes the trace; returns {"trace": …, "sync": …}.
nlohmann::json write_synchronized_trace(model::Trace& trace, const std::filesystem::path& dir,
                                        const PapiStatus& papi, double gamma);

}  // namespace mpidle::profiler
