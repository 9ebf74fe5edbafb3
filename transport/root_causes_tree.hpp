#pragma once
// Why it waited, over the processes of a parallel replay (analysis/replay_delays.hpp):
// the questions and answers as sparse exchanges, the propagated waiting passed back
// in rounds, and the parts merged up the binomial tree. Used by mpidle-replay.

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "analysis/replay_delays.hpp"
#include "sync/parallel_sync.hpp"

namespace mpidle::transport {

// How many rounds propagated waiting is passed back: a chain of wait states longer
// than this has the rest of its long-term cost left out (said through `warn`).
inline constexpr int kMaxPropagationRounds = 64;

// Collective over `comm`. `ranks`: this process' ranks with their wait states
// (gather_wait_states' delay_inputs). Process 0 gets the whole run's root causes;
// the others nothing. A process that cannot read what it was sent says so through
// `warn` and leaves out what it could not read.
std::optional<analysis::DelayAnalysis> gather_root_causes(MPI_Comm comm, const model::Trace& tables,
                                                          std::vector<analysis::ReplayRank> ranks,
                                                          const sync::ReplayDirectory& directory,
                                                          void (*warn)(const std::string&));

}  // namespace mpidle::transport
