#pragma once
// The "sync" section of profile.json, from a synchronized trace (written by the
// profiler at finalize and rewritten by `mpidle sync`).

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "trace_sync.hpp"

namespace mpidle::sync {

nlohmann::json sync_section(const model::Trace& trace, const TraceSyncResult& result);

// Replaces the "sync" section of a run's profile.json (written whole to a partial
// file, then renamed over it); everything else is kept as written. Throws
// std::runtime_error when the file cannot be read or written.
void rewrite_sync_section(const std::filesystem::path& profile_json, nlohmann::json section);

// One line's worth of what synchronization did: "violations N raw, … max shift X s".
std::string sync_outcome(const TraceSyncResult& result);
// The warning for messages without a partner, or "" when every message matched.
std::string unmatched_warning(const TraceSyncResult& result);

// Events per rank: the calls traced (further records of the same call not counted).
std::vector<std::uint64_t> events_by_rank(const model::Trace& trace);

}  // namespace mpidle::sync
