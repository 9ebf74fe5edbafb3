#pragma once
// The profiler's only voice: single `mpidle:` lines on stderr, never stdout.

#include <string>

namespace mpidle::profiler {

// Writes "mpidle: <message>" (or "mpidle(<rank>): …" once the rank is known).
void warn(const std::string& message);
void set_log_rank(int rank, bool quiet_on_this_rank);

// Before MPI_Abort: waits, at most `max_ms`, until the launcher has read what this
// process wrote to stderr through a pipe. Hydra kills the job on the abort message
// and drops what its proxy had not read yet (bare, MPICH's own abort line is lost in
// about 1 run of 12 here).
void let_stderr_drain(int max_ms);

}  // namespace mpidle::profiler
