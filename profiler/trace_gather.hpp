#pragma once
// Rank 0 takes every rank's trace in turn, in batches of bounded size, straight
// into the merged trace; every other rank streams its buffers out as it reads them
// and keeps no copy. So at finalize a rank other than 0 needs its MPIDLE_TRACE_MEM
// and one batch, whatever its trace's size.

#include <mpi.h>

#include <functional>
#include <optional>

#include "model/trace_file.hpp"
#include "rank_trace_stream.hpp"

namespace mpidle::profiler {

// Streams this rank's records into the sink it is given; returns the rank's
// tables and header (as stream_rank_trace).
using RankTraceSource = std::function<model::Trace(const TraceBatchSink&)>;

// Collective over `comm`: rank 0 gets every rank's trace merged in rank order
// (ranks whose data could not be read are left out with a warning); the others
// get nothing. `own_records`: how many records this rank's source will give.
std::optional<model::Trace> gather_rank_traces(MPI_Comm comm, std::uint64_t own_records,
                                               const RankTraceSource& source);

}  // namespace mpidle::profiler
