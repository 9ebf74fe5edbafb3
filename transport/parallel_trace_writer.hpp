#pragma once
// Writes a trace file with MPI-IO (POSIX writes where MPI-IO cannot open it),
// every process its own ranks' sections at their offsets: no process receives
// another's records. The processes' ranks must be
// consecutive blocks in the trace's rank order (process 0 the first block).

#include <mpi.h>

#include <filesystem>
#include <vector>

#include "model/trace_file.hpp"

namespace mpidle::transport {

// Collective over `comm`. `tables`: functions, callsites, counters and latency
// (the same on every process); `ranks`: how many ranks the file holds in all.
// Throws MpiError on every process if any of them failed.
void write_trace_parallel(MPI_Comm comm, const std::filesystem::path& file,
                          const model::Trace& tables, std::uint64_t ranks,
                          const std::vector<const model::RankTrace*>& mine);

}  // namespace mpidle::transport
