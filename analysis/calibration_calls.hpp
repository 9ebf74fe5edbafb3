#pragma once
// The calls of one rank that the exact analysis could judge, as calibration
// (model/calibration.hpp) keys them: blocking receives and sends whose message was
// matched, completion calls all of whose requests are known (receives matched),
// blocking collectives whose instance every member entered and left. For each,
// duration − exact wait is its cost. In a trace window, what began or ended outside
// the window is not judged. Pure C++, no MPI.

#include <cstdint>

#include "model/calibration.hpp"
#include "rank_waits.hpp"

namespace mpidle::analysis {

// A collective's key takes its communicator's shape from its record (its tag).
// Calls that entered before `start_until_ns` (the second window's opening) are the
// first window's, counted in the start maps as well (model/calibration.hpp).
model::Calibration calibrate_rank(const model::Trace& tables, const model::RankTrace& rank,
                                  const sync::RankPartners& partners, const CallWaits& call_waits,
                                  std::int64_t start_until_ns = INT64_MIN);

}  // namespace mpidle::analysis
