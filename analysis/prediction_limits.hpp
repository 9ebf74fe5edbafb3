#pragma once
// What the replay cannot describe about a run on a target machine, said beside the
// prediction rather than hidden in it (docs/prediction.md, "Assumptions and
// limits"). Each is found in the trace and the target's model, and named with how
// many calls it concerns; seen on the rate-limited links of scripts/netns.sh.

#include <string>
#include <vector>

#include "model/machine_model.hpp"
#include "model/trace_file.hpp"
#include "sync/trace_matching.hpp"

namespace mpidle::analysis {

std::vector<std::string> model_limits(const model::Trace& trace,
                                      const sync::TraceMatching& matching,
                                      const model::MachineModel& target);

}  // namespace mpidle::analysis
