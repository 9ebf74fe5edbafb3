#pragma once
// The robust baseline: the cost of a call of one (function, size class,
// communicator shape) that did not wait, taken from the distribution of all ranks'
// calls with that key instead of from the single fastest one. docs/profile-format.md,
// "Two wait estimates", says how it is chosen and why it is the default. No MPI.

#include "duration_histogram.hpp"

namespace mpidle::model {

// The mean duration of the lowest cluster of `durations`: the lowest bin with at
// least 5% of the calls, with a neighbour bin when the cluster straddles their edge.
// Never below `minimum_s` (the fastest call); `minimum_s` without a histogram.
double robust_baseline_s(const DurationHistogram& durations, double minimum_s);

}  // namespace mpidle::model
