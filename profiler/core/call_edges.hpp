#pragma once
// The times at which a call's exit leaves the hot path: the trace windows' next
// edge (trace_windows.hpp) and the next profile checkpoint (checkpoint_schedule.hpp).
// A call compares its exit time with the earlier of the two, one comparison for
// both; the call that first ends past it does the work of whichever fell due.

#include <atomic>

#include "profiler/core/clock.hpp"

namespace mpidle::profiler {

namespace detail {
// The earlier of the two edges below: the one a call's exit is compared with.
inline constinit std::atomic<Ticks> g_next_edge{~Ticks{0}};
// The windows' own edge (the next window opens, or the open one closes).
inline constinit std::atomic<Ticks> g_window_edge{~Ticks{0}};
// The next checkpoint's time.
inline constinit std::atomic<Ticks> g_checkpoint_edge{~Ticks{0}};
}  // namespace detail

// Each owner moves its own edge; g_next_edge follows.
void set_window_edge(Ticks edge);
void set_checkpoint_edge(Ticks edge);

// What the call that ends past a checkpoint's time runs (set once at MPI_Init).
using CheckpointDue = void (*)(Ticks now);
void on_checkpoint_due(CheckpointDue due);

// Out of line: a call ended past g_next_edge.
[[gnu::noinline]] void cross_edge(Ticks now);

}  // namespace mpidle::profiler
