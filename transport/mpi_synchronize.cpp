#include "transport/mpi_synchronize.hpp"

#include "sync/clock_plan.hpp"
#include "transport/mpi_replay_network.hpp"

namespace mpidle::transport {

MpiSynchronized synchronize_over_mpi(MPI_Comm comm, const std::vector<model::RankTrace*>& ranks,
                                     const sync::ReplayDirectory& directory,
                                     const sync::ClcParams& params,
                                     std::int64_t measured_min_latency_ns) {
  MpiSynchronized out;
  out.result = sync::synchronize_with_plan(
      [&](const sync::ClcParams& p) {
        MpiReplayNetwork network(comm);
        sync::ParallelSync replay(network, ranks, directory, p);
        while (!replay.step()) {
        }
        out.partners = replay.take_partners();
        out.complete_collectives = replay.complete_collectives();
        return replay.result();
      },
      params, measured_min_latency_ns);
  return out;
}

}  // namespace mpidle::transport
