#pragma once
// The "sync" section of profile.json, from a synchronized trace (written by the
// profiler at finalize and rewritten by `mpidle sync`).

#include <nlohmann/json.hpp>

#include "trace_sync.hpp"

namespace mpidle::sync {

nlohmann::json sync_section(const model::Trace& trace, const TraceSyncResult& result);

// Events per rank: the calls traced (further records of the same call not counted).
std::vector<std::uint64_t> events_by_rank(const model::Trace& trace);

}  // namespace mpidle::sync
