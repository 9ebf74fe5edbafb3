#pragma once
// Clock synchronization of a trace by the parallel replay over MPI, checked and
// repeated as sync/clock_plan decides (every process takes the same decisions from
// the same reduced statistics). The profiler at MPI_Finalize and mpidle-replay.

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "sync/parallel_sync.hpp"

namespace mpidle::transport {

struct MpiSynchronized {
  sync::TraceSyncResult result;
  std::vector<sync::RankPartners> partners;  // of `ranks`, in their order
  std::uint64_t complete_collectives = 0;
};

// `ranks`: this process' ranks as `directory` places them; their synchronized
// times are written into them. params.min_latency_ns < 0: `measured_min_latency_ns`.
MpiSynchronized synchronize_over_mpi(MPI_Comm comm, const std::vector<model::RankTrace*>& ranks,
                                     const sync::ReplayDirectory& directory,
                                     const sync::ClcParams& params,
                                     std::int64_t measured_min_latency_ns);

}  // namespace mpidle::transport
