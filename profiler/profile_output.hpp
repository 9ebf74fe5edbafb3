#pragma once
// Finalize: fold this process' tables, reduce them over the tree, and let rank 0
// write the run directory. Collective over the profiler's own communicator.

#include "context.hpp"

namespace mpidle::profiler {

void finalize_profile(Context& context);

// When a rank ends without MPI_Finalize (`ended`: "MPI_Abort", or "exit"): this
// rank's own profile, from its tables alone and without any communication, in
// <run directory>/partial/rank-<rank>/ (the same files as a run's, one rank).
void write_partial_profile(Context& context, const char* ended);

}  // namespace mpidle::profiler
