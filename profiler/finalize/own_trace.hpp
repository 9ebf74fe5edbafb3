#pragma once
// The first steps of every finalize that reads a rank's records, shared by trace
// mode (trace_output.hpp) and profile mode's windows (window_calibration.hpp).

#include <mpi.h>

#include "model/trace_file.hpp"
#include "profiler/runtime/context.hpp"

namespace mpidle::profiler {

// This rank's records, out of its buffers, and its tables.
model::Trace own_trace(Context& context, const model::ClockMeasurement& final);
// Offsets to rank 0, composed down the measurement tree (depth ceil(log2 P)). On
// `one_node` every offset is 0 already and nothing is sent: each round trip stays
// the one to the rank's parent, the latency bound the finalize takes from it.
void compose_offsets(MPI_Comm comm, model::RankTrace& mine, bool one_node);

}  // namespace mpidle::profiler
