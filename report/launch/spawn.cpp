#include "report/launch/spawn.hpp"

#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "report/commands/command.hpp"

extern char** environ;

namespace mpidle::report {

namespace fs = std::filesystem;

namespace {

volatile sig_atomic_t g_launcher = 0;

void forward_to_launcher(int sig, siginfo_t* info, void*) {
  // A terminal's Ctrl-C (sent by the kernel) reaches the launcher itself, in the
  // same foreground process group: forwarded again, it would count twice.
  const bool from_a_process =
      info != nullptr && (info->si_code == SI_USER || info->si_code == SI_QUEUE);
  if (g_launcher > 0 && from_a_process && info->si_pid != g_launcher) kill(g_launcher, sig);
}

}  // namespace

fs::path self_directory() {
  char buf[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return fs::current_path();
  return fs::path(std::string(buf, static_cast<std::size_t>(n))).parent_path();
}

int run_and_wait(const std::vector<std::string>& command,
                 const std::map<std::string, std::string>& set) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : set) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
  if (rc != 0) throw UsageError("cannot run " + command[0] + ": " + std::strerror(rc));
  g_launcher = pid;
  // A signal sent to mpidle alone (kill, a batch system) goes on to the launcher,
  // which stops its ranks as it would if it had been sent to it; mpidle then
  // waits for it and returns its status, as a bare launcher would end.
  struct sigaction forward {};
  forward.sa_sigaction = forward_to_launcher;
  forward.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&forward.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &forward, nullptr);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_launcher = 0;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

void check_launcher_matches_build(LauncherFamily family, const std::string& launcher) {
  const std::string built_for = MPIDLE_BUILT_FOR_MPI;
  const bool mismatch = (built_for == "mpich" && family == LauncherFamily::open_mpi) ||
                        (built_for == "openmpi" && family == LauncherFamily::hydra);
  if (mismatch) {
    throw UsageError("this mpidle was built for " +
                     std::string(built_for == "mpich" ? "MPICH" : "Open MPI") + ", but " +
                     launcher + " starts " + family_name(family) +
                     " ranks: use an mpidle built for that MPI (cmake -DMPIDLE_MPI=" +
                     (built_for == "mpich" ? "openmpi" : "mpich") + ", see docs/building.md)");
  }
}

}  // namespace mpidle::report
