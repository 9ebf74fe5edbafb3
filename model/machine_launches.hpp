#pragma once
// A machine model from several probe launches of one machine (`mpidle probe
// --launches N`). A VM, or a node whose processes land on different cores from one
// launch to the next, runs one launch's exchanges and kernels at one speed and the
// next launch's at another: a single launch describes a moment, not the machine.
// Every point of every curve and each compute kernel takes the median over the
// launches; its spread becomes at least half the launches' range (so that the
// prediction's interval covers what the launches saw), and that range is kept on
// its own (launch_spread). Structure (eager limit, protocols) comes from the launch
// whose point-to-point times are the median.

#include <vector>

#include "machine_model.hpp"

namespace mpidle::model {

// Throws MachineError when the launches do not have the same curves and sizes
// (another probe version or options), or there are none.
MachineModel merge_launches(const std::vector<MachineModel>& launches);

}  // namespace mpidle::model
