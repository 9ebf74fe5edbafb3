#pragma once
// Finalize: fold this process' tables, reduce them over the tree, and let rank 0
// write the run directory. Collective over the profiler's own communicator.

#include "context.hpp"

namespace mpidle::profiler {

void finalize_profile(Context& context);

}  // namespace mpidle::profiler
