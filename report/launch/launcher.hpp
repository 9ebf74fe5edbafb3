#pragma once
// What `mpidle run` must add to a launcher's command line so that every rank gets
// libmpidle preloaded and the MPIDLE_* settings. MPICH's Hydra (and Intel MPI's),
// Slurm's srun and most batch launchers forward the whole environment; Open MPI's
// mpirun/mpiexec forwards only what `-x NAME` names, and refuses to run as root
// without --allow-run-as-root.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace mpidle::report {

// The executable file `word` names: itself when it holds a '/', else the first match
// on PATH, as the shell finds it; empty when there is none.
std::filesystem::path find_program(const std::string& word);

enum class LauncherFamily { open_mpi, hydra, slurm, other };

const char* family_name(LauncherFamily family);

// Recognizes the launcher that starts `command` (its first word): by the name it was
// called by and the name it resolves to (Debian's mpiexec → mpiexec.openmpi →
// orterun), and, for a bare mpirun/mpiexec, by what `--version` prints (asked through
// `version_of`, which returns that output or "").
LauncherFamily recognize_launcher(
    const std::vector<std::string>& command,
    const std::function<std::string(const std::string& program)>& version_of);

// `program --version`'s output (first 4 KiB), or "" when it cannot be run or takes
// longer than a few seconds.
std::string launcher_version(const std::string& program);

// The command with the options `family` needs to forward `variables` to every rank
// (and, for Open MPI run by root, --allow-run-as-root), inserted after the launcher.
std::vector<std::string> forward_environment(const std::vector<std::string>& command,
                                             LauncherFamily family,
                                             const std::vector<std::string>& variables,
                                             bool running_as_root);

}  // namespace mpidle::report
