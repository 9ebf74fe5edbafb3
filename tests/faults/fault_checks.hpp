#pragma once
// What every fault-suite case checks: a program run bare and under mpidle, and the
// application unable to tell the difference.

#include <signal.h>

#include <map>
#include <string>
#include <vector>

#include "process.hpp"

namespace mpidle::test {

// A status the test harness gave a run it killed at its deadline.
constexpr int kKilledAtDeadline = 128 + SIGKILL;

struct Pair {
  Outcome bare, profiled;
};

// The same program, bare then under mpidle with `env`.
Pair both(int ranks, const std::string& program, const std::vector<std::string>& args,
          const std::map<std::string, std::string>& env);

// Stdout as the application wrote it: launchers add banners naming process ids
// when a rank dies (MPICH's "PID 1234 RUNNING AT host").
std::string without_pids(const std::string& text);

// The same exit status and stdout, and the bare run not killed at its deadline.
void check_same_for_the_application(const Pair& p);

// Ranks that end at different moments without MPI_Finalize: MPI leaves the job's
// status to the launcher, which kills the ranks still running once one has ended
// (MPICH's hydra: SIGKILL to their process groups) and reports whichever status it
// collected first: the program's, or the kill's. Bare runs race too, rarely, their
// ranks ending microseconds apart; mpidle's partial profile at exit() puts
// milliseconds between them. So: the application's own stdout lines the same, both
// statuses non-zero, and equal unless the launcher says it killed a rank. The
// exact status is checked where no rank can outlive another (one rank).
void check_same_for_the_application_ending_apart(const Pair& p);

// Every line mpidle adds to stderr is its own, one line each (no crash report).
// Lines the launcher writes bare too (Open MPI reports a non-zero exit status)
// are the application's, compared with their numbers (ids, process ids) masked.
void check_only_mpidle_lines(const std::string& bare_err, const std::string& err);

}  // namespace mpidle::test
