#pragma once
// What the wait-state rules need to know of one rank's calls that its own records
// tell (docs/calibration.md, "The patterns"): which receive each blocking probe
// found, and which call completed each non-blocking send. The windows, the parallel
// replay and the sequential analysis all take them from here. Pure C++, no MPI.

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/trace_file.hpp"

namespace mpidle::analysis {

// Per blocking probe (MPI_Probe, MPI_Mprobe) that found a message: the probe's
// record and the posting record of the rank's next receive from the same sender,
// the message the probe saw.
std::vector<std::pair<std::uint64_t, std::uint64_t>> probe_receives(const model::Trace& tables,
                                                                    const model::RankTrace& rank);

// Per non-blocking send (its isend record): the first record of the call whose
// completion record finished it.
std::unordered_map<std::uint64_t, std::uint64_t> send_completions(const model::RankTrace& rank);

}  // namespace mpidle::analysis
