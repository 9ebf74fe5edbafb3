#pragma once
// The finalize's tree operations on profile data (transport/byte_tree does the
// moving of bytes).

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/calibration.hpp"
#include "model/profile_summary.hpp"
#include "transport/byte_tree.hpp"

namespace mpidle::profiler {

using transport::bytes_of;
using transport::recv_bytes;
using transport::send_bytes;
using transport::text_of;
using transport::tree_allreduce;
using transport::tree_broadcast;
using transport::tree_reduce;
using transport::TreeTraffic;

// The global minima of every (function, size class, communicator shape), on every
// rank (recursive doubling: transport::tree_allreduce), so that each can compute its
// own wait against them. Its size depends on the keys, not on the number of ranks.
// With `calibration`, this rank's part of the windows' calibration, the run's
// calibration travels in the same rounds and replaces the part (which stays as the
// rank's own sites), so that the windows need no reduction of their own.
model::GlobalMinima allreduce_minima(const model::GlobalMinima& local,
                                     model::Calibration* calibration, MPI_Comm comm,
                                     TreeTraffic& traffic);

std::optional<model::ProfileSummary> reduce_summary(model::ProfileSummary local, MPI_Comm comm,
                                                    TreeTraffic& traffic);

}  // namespace mpidle::profiler
