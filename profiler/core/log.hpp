#pragma once
// The profiler's only voice: single `mpidle:` lines on stderr, never stdout.

#include <string>

namespace mpidle::profiler {

// Writes "mpidle: <message>" (or "mpidle(<rank>): …" once the rank is known).
void warn(const std::string& message);
void set_log_rank(int rank, bool quiet_on_this_rank);

}  // namespace mpidle::profiler
