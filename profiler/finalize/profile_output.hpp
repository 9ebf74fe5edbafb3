#pragma once
// Finalize: fold this process' tables, reduce them over the tree, and let rank 0
// write the run directory. Collective over the profiler's own communicator.

#include <filesystem>

#include "model/checkpoint_file.hpp"
#include "profiler/runtime/context.hpp"

namespace mpidle::profiler {

void finalize_profile(Context& context);

// When a rank ends, or may end, without MPI_Finalize (`ended`: "MPI_Abort", "exit"
// or a signal's name): this rank's own profile, from its tables alone and without
// any communication, in <run directory>/partial/rank-<rank>/ (the same files as a
// run's, one rank). Returns that directory. With `announce`, one line says where.
std::string write_partial_profile(Context& context, const char* ended, bool announce);

// This rank's checkpoint (model/checkpoint_file.hpp): its tables so far, summarized
// against its own minima, symbolized, with the run's and the job's description;
// no communication. `ended`: "checkpoint", or how the rank is ending.
model::Checkpoint rank_checkpoint(Context& context, const char* ended);
// The run directory every rank writes into (the staging one in a log tree).
std::filesystem::path run_directory_of(const Context& context);

// In a log tree (MPIDLE_LOG_DIR), a partial profile written to the staging
// directory goes to the run's final place once the rank is known to end without
// MPI_Finalize. Returns where it is now (`dir` elsewhere). With `announce`, one
// line says where.
std::string publish_partial_profile(Context& context, const std::string& dir, const char* ended,
                                    bool announce);

}  // namespace mpidle::profiler
