#pragma once
// Starting a launcher from `mpidle run` and `mpidle probe`: where mpidle's own
// files are, running a command with extra environment, and refusing a launcher of
// another MPI than the one this mpidle was built for.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "report/launch/launcher.hpp"

namespace mpidle::report {

// The directory of the running mpidle executable.
std::filesystem::path self_directory();

// Runs `command` with the environment plus `set`, waits for it, and returns its
// exit status (128 + signal when killed). Throws UsageError if it cannot start.
int run_and_wait(const std::vector<std::string>& command,
                 const std::map<std::string, std::string>& set);

// A libmpidle (or mpidle-probe) built for one MPI, started by another MPI's
// launcher, would load two MPI libraries into each process: UsageError.
void check_launcher_matches_build(LauncherFamily family, const std::string& launcher);

}  // namespace mpidle::report
