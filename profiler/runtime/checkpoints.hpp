#pragma once
// Profile checkpoints (MPIDLE_CHECKPOINT; docs/centre.md, "Checkpoints"). Every
// rank writes its own tables so far to RUN/checkpoints/rank-N at intervals, inside
// the first of its MPI calls that ends past the checkpoint's time (one comparison
// per call, shared with the trace windows' edges: call_edges.hpp), with no
// communication. A rank that makes no MPI call across a checkpoint's time (a hang
// inside one, or a long computation) gets a small stall note instead
// (RUN/checkpoints/rank-N.stall) from a watcher thread that sleeps between
// checkpoints: which MPI call each of its threads is in, and since when no call
// has ended. `mpidle status` and `mpidle report` read both.

#include "profiler/runtime/context.hpp"

namespace mpidle::profiler {

// Rank 0 at MPI_Init, before the ranks agree on the run directory's name: an
// earlier run's checkpoints in a directory used again are removed (the other
// ranks write none before that agreement).
void clear_checkpoints(const Context& context);

// At MPI_Init, with the Context installed: places the first checkpoint (at 60 s,
// or the interval if shorter) and starts the watcher. Nothing with
// MPIDLE_CHECKPOINT=0.
void start_checkpoints(Context& context);

// Before the profile is written at MPI_Finalize: no checkpoint starts after this
// returns (one being written is waited for), and the watcher ends.
void stop_checkpoints();

// A rank that ends without MPI_Finalize (`ended`: the signal's or function's name)
// writes a last checkpoint, so that the merge holds it as of its end.
void write_last_checkpoint(Context& context, const char* ended);

}  // namespace mpidle::profiler
