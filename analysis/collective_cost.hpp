#pragma once
// What a collective instance costs on the target, and when each member leaves it:
// the rules both prediction engines share (docs/prediction.md, "A collective").
// Pure C++, no MPI.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "model/machine_model.hpp"
#include "model/trace_file.hpp"
#include "sync/trace_matching.hpp"

namespace mpidle::analysis {

inline constexpr std::int64_t kUnknownTime = std::numeric_limits<std::int64_t>::min();

struct CollectiveCost {
  std::int64_t ns = 0;
  std::int64_t latency_ns = 0;  // the 0-byte part of it
};

// The model's cost for the instance's function, size and communicator size; without a
// model for it, the fastest member's measured (synchronized) time, its pure cost there.
CollectiveCost collective_cost(const model::Trace& trace, const sync::CollectiveMatch& match,
                               const model::CollectiveModel* model);

// When member `k` leaves, from the enters known so far (kUnknownTime: not yet), or
// nothing while an enter it depends on is unknown: N-to-N after the last member,
// Bcast/Scatter after the root, the root of a Reduce/Gather after every member, a
// scan after the members before it; + cost.
std::optional<std::int64_t> collective_exit(const sync::CollectiveMatch& match, std::size_t k,
                                            const std::vector<std::int64_t>& enters,
                                            std::int64_t cost_ns);

}  // namespace mpidle::analysis
