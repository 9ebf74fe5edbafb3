#pragma once
// The choices a prediction makes beyond the replay itself (docs/prediction.md):
// how much faster or slower the target's cores run the compute bursts, and how
// wide the interval around the predicted wall time is. `mpidle predict` applies
// them; they live here so that every reader of a machine model decides alike.

#include <functional>
#include <string>

#include "analysis/prediction.hpp"
#include "model/machine_model.hpp"

namespace mpidle::analysis {

struct CpuScaleChoice {
  double scale = 1;      // PredictionInput::cpu_scale
  double spread = 0;     // relative: the probes' spread of the CPU ratio, 0 where given or none
  std::string note;      // what the user should know of the choice, or empty
  bool missing = false;  // no basis at all: compute keeps its measured time
};

// `given` > 0: the user's factor (--cpu-scale), taken as it is. Otherwise from the
// compute references of `source` (the machine the run was traced on, may be null)
// and `target`: none where both were probed on one host and CPU (one CPU, whatever
// the kernels' times say), and none where the ratio lies within the probes' spread.
CpuScaleChoice choose_cpu_scale(double given, const model::MachineModel* source,
                                const model::MachineModel& target);

// The prediction's interval: the same replay (`wall_of`) at both ends of what the
// probes saw, the machine's costs shifted by their spread and the CPU scale by
// `cpu_spread`. Sets p.wall_low_s and p.wall_high_s, sorted and around p.wall_s (a
// faster network can leave a rank waiting longer elsewhere); leaves them where the
// model has no spread.
void predict_interval(Prediction& p, const PredictionInput& input, double cpu_spread,
                      const std::function<double(const PredictionInput&)>& wall_of);

}  // namespace mpidle::analysis
