#pragma once
// One callsite per source location. A compiler may duplicate a call: an unrolled
// loop `for (k = 0; k < 3; ++k) MPI_Barrier(c)` at -O2 becomes three calls with
// three return addresses on the same line. After symbolization, callsites whose
// frames all name the same function, file and line are one callsite (frames that
// did not symbolize compare by module and offset). The raw addresses stay in the
// merged callsite's `merged_from`.

#include <cstdint>
#include <vector>

#include "profile_summary.hpp"
#include "trace_file.hpp"

namespace mpidle::model {

// Merges alike callsites in place; returns old index → new index, or an empty
// vector when nothing was merged.
std::vector<std::uint32_t> merge_alike_callsites(std::vector<Callsite>& callsites);

// The same for a profile summary: a rank's shares that now have the same
// (callsite, function) are added up. True when anything merged. (Minima do not
// depend on the callsite, so merging after the wait was computed changes no wait.)
bool merge_alike_callsites(ProfileSummary& summary);

// The same for a trace: records point at the merged callsites.
bool merge_alike_callsites(Trace& trace);

}  // namespace mpidle::model
