#pragma once
// What the wait-state rules need to know of one rank's calls that its own records
// tell (docs/calibration.md, "The patterns"): which receive each blocking probe
// found, and which call completed each non-blocking send. The windows, the parallel
// replay and the sequential analysis all take them from here. Pure C++, no MPI.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "model/large_array.hpp"
#include "model/trace_file.hpp"

namespace mpidle::analysis {

// Per blocking probe (MPI_Probe, MPI_Mprobe) that found a message: the probe's
// record and the posting record of the rank's next receive from the same sender,
// the message the probe saw.
std::vector<std::pair<std::uint64_t, std::uint64_t>> probe_receives(const model::Trace& tables,
                                                                    const model::RankTrace& rank);

// Per non-blocking send that a later call completed: (its isend record, the first
// record of that call), by isend record; in an array that is file-backed in an
// out-of-core finalize, as the rank's other per-message facts are.
using SendCompletions = model::LargeArray<std::pair<std::uint64_t, std::uint64_t>>;
SendCompletions send_completions(const model::RankTrace& rank);
// The call that completed the isend at `record`, if any.
std::optional<std::uint64_t> completing_call(const SendCompletions& completions,
                                             std::uint64_t record);

}  // namespace mpidle::analysis
