#pragma once
// Binomial-tree reduction of serialized tables: ceil(log2 P) rounds, each rank
// sends once, and no rank ever receives every table from every other rank.

#include <mpi.h>

#include <optional>

#include "model/profile_tables.hpp"

namespace mpidle::profiler {

// Rank 0 of `comm` gets every rank's tables merged; the others get nothing.
// `undecodable` counts subtrees whose bytes could not be read (then left out).
std::optional<model::ProfileTables> reduce_tables(model::ProfileTables local, MPI_Comm comm,
                                                  int& undecodable);

}  // namespace mpidle::profiler
