#pragma once
// The calls of one rank that the exact analysis could judge, as calibration
// (model/calibration.hpp) keys them: blocking receives and sends whose message was
// matched, completion calls all of whose requests are known (receives matched),
// blocking collectives whose instance every member entered and left. For each,
// duration − exact wait is its cost. In a trace window, what began or ended outside
// the window is not judged. Pure C++, no MPI.

#include <cstdint>
#include <functional>

#include "model/calibration.hpp"
#include "rank_waits.hpp"

namespace mpidle::analysis {

// The communicator shape of a trace communicator id (collectives' key).
using ShapeOfComm = std::function<std::int32_t(std::uint32_t comm)>;

model::Calibration calibrate_rank(const model::Trace& tables, const model::RankTrace& rank,
                                  const sync::RankPartners& partners, const CallWaits& call_waits,
                                  const ShapeOfComm& shape_of);

}  // namespace mpidle::analysis
