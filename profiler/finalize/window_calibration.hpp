#pragma once
// Profile mode's trace windows at MPI_Finalize (docs/calibration.md), on every rank:
//  1. The rank's window records leave its buffers; functions are numbered as the
//     function table numbers them, the same on every rank.
//  2. Offsets compose to rank 0 as in trace mode.
//  3. Each sender tells each receiver, per window and channel, when its sends began
//     and their sizes (a sparse exchange: only ranks that exchanged messages talk);
//     the receiver pairs them with its receives (sync/window_channels) and answers
//     which sends were received inside the window. What was not is left out, and
//     every channel gets ids of its window's own, so that no pair spans two windows.
//  4. One reduction agrees on the clock (the one that breaks fewer clock
//     conditions) and the fastest sends on it; each rank's exact waits then give its
//     calls' costs. The finalize sums those over the ranks in the same rounds as the
//     profile's minima (tree_reduce.hpp: allreduce_minima).
//  5. Why they waited (analysis/window_delays.hpp): each rank asks the ranks that
//     made it wait for their time by kind before the waiting, in two more
//     exchanges, and sums its waiting by root cause per callsite.
// No trace file and no loop summary are written.

#include "model/calibration.hpp"
#include "profiler/finalize/finalize_memory.hpp"
#include "profiler/runtime/context.hpp"

namespace mpidle::profiler {

// Collective over the profiler's communicator. Every rank gets its part of the
// calibration, to be summed with allreduce_minima; an empty one on every rank (and
// one `mpidle:` line) where it could not be made. `offsets_s`: how long this rank
// measured its clock's offset to its parent.
model::Calibration calibrate_from_windows(Context& context, FinalizeMemory& memory,
                                          double* offsets_s = nullptr);

// Trace mode's window check (MPIDLE_WINDOW_CHECK): the same steps on the calls of
// `own` (this rank's whole trace, its records numbered in `tables`, not yet
// synchronized) that the windows would have recorded. Collective likewise; every
// rank gets the run's calibration, whose source is "window check".
model::Calibration calibrate_from_window_part(Context& context, FinalizeMemory& memory,
                                              const model::Trace& tables,
                                              const model::RankTrace& own);

}  // namespace mpidle::profiler
