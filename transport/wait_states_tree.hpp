#pragma once
// The run's wait states after a parallel replay: each process finds its ranks'
// own (analysis/rank_waits) from what the replay brought of their partners, and
// the results merge over the binomial tree. Used at MPI_Finalize and by
// mpidle-replay.

#include <mpi.h>

#include <optional>
#include <vector>

#include "analysis/calibration_calls.hpp"
#include "analysis/replay_delays.hpp"
#include "analysis/wait_states.hpp"
#include "sync/parallel_sync.hpp"

namespace mpidle::transport {

// Collective over `comm`. `ranks` (with their positions in the trace) and
// `partners` are this process' (as ParallelSync::take_partners gives them);
// `complete_collectives` the replay's count. Process 0 gets the whole run's wait
// states; the others nothing. A rank whose waits cannot be found is warned about
// through `warn` and left out.
// With `calibration`, every process also gets the calibration of the whole run
// (analysis/calibration_calls, summed up the tree and sent back down).
struct CalibrationRequest {
  model::Calibration* out = nullptr;
  // Process 0's wait states are not needed (profile mode's windows): not merged.
  bool calibration_only = false;
};
// With `delay_inputs`, each rank's wait states and per-record waits as well, for the
// delay analysis (root_causes_tree.hpp).
std::optional<analysis::WaitStates> gather_wait_states(
    MPI_Comm comm, const model::Trace& tables, const std::vector<const model::RankTrace*>& ranks,
    const std::vector<std::uint32_t>& positions, const std::vector<sync::RankPartners>& partners,
    std::uint64_t complete_collectives, void (*warn)(const std::string&),
    const CalibrationRequest& calibration = {},
    std::vector<analysis::ReplayRank>* delay_inputs = nullptr);

}  // namespace mpidle::transport
