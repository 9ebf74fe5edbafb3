#pragma once
// Until when each member of one complete, blocking collective instance waited for
// the others (Scalasca's patterns; Becker, Rabenseifner, Wolf 2007): the whole
// trace's analysis (analysis/wait_states) and the trace windows' home processes
// (sync/window_partners) judge instances by these rules. Pure C++, no MPI.

#include <cstdint>
#include <vector>

#include "model/trace_events.hpp"

namespace mpidle::sync {

struct CollectiveEnter {
  std::int32_t rank = -1;  // world rank
  std::int32_t order = 0;  // scans: rank in the communicator
  std::int64_t enter_ns = 0;
};

// until[i] for members[i]: N-to-N, the last enter; 1-to-N, the root's enter for the
// others; N-to-1, the first sender's enter for the root; scans, the latest enter of
// the members before it in the communicator's order. kClcNever where a member waits
// for nobody. `until` is resized; `by_order` is scratch room.
void collective_wait_until(model::CollectiveKind kind, std::int32_t root,
                           const std::vector<CollectiveEnter>& members,
                           std::vector<std::int64_t>& until, std::vector<std::size_t>& by_order);

// cause[i] for members[i]: the latest enter of the members whose data it cannot
// leave without (the clock condition: it leaves at least a latency after that).
// N-to-N, the others; 1-to-N, the root for the others; N-to-1, the others for the
// root; scans, the members before it. Unlike `until`, a member is never its own
// cause: the last to enter an Allreduce may leave at once. kClcNever where none.
void collective_clock_causes(model::CollectiveKind kind, std::int32_t root,
                             const std::vector<CollectiveEnter>& members,
                             std::vector<std::int64_t>& cause, std::vector<std::size_t>& by_order);

}  // namespace mpidle::sync
