#include "report/launch/launcher.hpp"

#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>

extern char** environ;

namespace mpidle::report {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const char* word) {
  return text.find(word) != std::string::npos;
}

bool is_executable_file(const fs::path& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

// The launcher's file name, as called and after following symbolic links.
std::vector<std::string> launcher_names(const std::string& program) {
  std::vector<std::string> names{fs::path(program).filename().string()};
  const fs::path path = find_program(program);
  std::error_code ec;
  const fs::path resolved = path.empty() ? path : fs::canonical(path, ec);
  if (!path.empty() && !ec) names.push_back(resolved.filename().string());
  return names;
}

LauncherFamily family_of_name(const std::string& name) {
  if (contains(name, "openmpi") || contains(name, "orterun") || contains(name, "prterun")) {
    return LauncherFamily::open_mpi;
  }
  if (contains(name, "mpich") || contains(name, "hydra")) return LauncherFamily::hydra;
  if (name == "srun") return LauncherFamily::slurm;
  return LauncherFamily::other;
}

bool has_word(const std::vector<std::string>& command, const char* word) {
  return std::find(command.begin(), command.end(), word) != command.end();
}

}  // namespace

fs::path find_program(const std::string& word) {
  if (word.find('/') != std::string::npos)
    return is_executable_file(word) ? fs::path(word) : fs::path();
  const char* env_path = std::getenv("PATH");
  const std::string dirs = env_path ? env_path : "";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / word;
    if (end > start && is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

const char* family_name(LauncherFamily family) {
  switch (family) {
    case LauncherFamily::open_mpi:
      return "Open MPI";
    case LauncherFamily::hydra:
      return "Hydra (MPICH, Intel MPI)";
    case LauncherFamily::slurm:
      return "Slurm";
    case LauncherFamily::other:
      break;
  }
  return "unknown";
}

LauncherFamily recognize_launcher(
    const std::vector<std::string>& command,
    const std::function<std::string(const std::string& program)>& version_of) {
  if (command.empty()) return LauncherFamily::other;
  for (const std::string& name : launcher_names(command[0])) {
    const LauncherFamily family = family_of_name(name);
    if (family != LauncherFamily::other) return family;
  }
  const std::string name = fs::path(command[0]).filename().string();
  if (name != "mpirun" && name != "mpiexec") return LauncherFamily::other;
  // A bare mpirun/mpiexec (a module's, or an alternative that did not resolve).
  const std::string version = version_of(command[0]);
  if (contains(version, "Open MPI") || contains(version, "OpenRTE")) {
    return LauncherFamily::open_mpi;
  }
  if (contains(version, "HYDRA") || contains(version, "Intel(R) MPI")) {
    return LauncherFamily::hydra;
  }
  return LauncherFamily::other;
}

std::string launcher_version(const std::string& program) {
  int fds[2];
  if (pipe(fds) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::string prog = program, flag = "--version";
  char* argv[] = {prog.data(), flag.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, prog.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  if (rc == 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    char buf[512];
    while (out.size() < 4096) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fds[0], POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
    kill(pid, SIGKILL);  // no-op when it has finished; a hung launcher must not block the run
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close(fds[0]);
  return out;
}

std::vector<std::string> forward_environment(const std::vector<std::string>& command,
                                             LauncherFamily family,
                                             const std::vector<std::string>& variables,
                                             bool running_as_root) {
  if (family != LauncherFamily::open_mpi || command.empty()) return command;
  std::vector<std::string> out{command[0]};
  if (running_as_root && !has_word(command, "--allow-run-as-root")) {
    out.push_back("--allow-run-as-root");
  }
  for (const std::string& name : variables) {
    out.push_back("-x");
    out.push_back(name);
  }
  out.insert(out.end(), command.begin() + 1, command.end());
  return out;
}

}  // namespace mpidle::report
