#pragma once
// Whether the program runs on the MPI library libmpidle was built for. A
// libmpidle built for one MPI, preloaded into a program of another, pulls its
// own MPI library into the process beside the program's; its handles and
// constants (MPI_COMM_WORLD, MPI_STATUS_IGNORE) mean nothing to the program's
// MPI, so profiling would crash the program. Two loaded libraries that define
// PMPI_Init is the sign, whatever the implementations or their file names.
//
// Passing calls through is not enough: the wrappers' parameter types are those
// of libmpidle's MPI (an int MPI_Comm would cut the program's pointer handles),
// so when libmpidle came in through LD_PRELOAD the process starts again without
// it, before main (mpi_library_check.cpp's load-time check).

#include <optional>
#include <string>

namespace mpidle::profiler {

// A one-line explanation when the program's MPI library is not libmpidle's,
// or nothing when they are the same.
std::optional<std::string> foreign_mpi_library();

// Before MPI can be asked: whether the launcher says this process is not the
// first rank (PMI_RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK or SLURM_PROCID above 0),
// so that a job-wide message is printed once. False when no launcher says.
bool launcher_says_not_first_rank();

}  // namespace mpidle::profiler
