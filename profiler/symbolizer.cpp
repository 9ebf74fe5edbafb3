#include "symbolizer.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>

extern char** environ;

namespace mpidle::profiler {
namespace {

constexpr std::size_t kAddressesPerRun = 400;

// Runs addr2line on one module; returns two lines (function, file:line) per address.
bool run_addr2line(const std::string& module, const std::vector<std::uint64_t>& offsets,
                   std::vector<std::string>& lines) {
  std::vector<std::string> args = {"addr2line", "-C", "-f", "-e", module};
  for (auto off : offsets) {
    char buf[32];
    // A return address points after the call; the call's line is one byte earlier.
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(off ? off - 1 : 0));
    args.emplace_back(buf);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (rc != 0) {
    close(pipe_fds[0]);
    return false;
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines.size() == 2 * offsets.size();
}

void apply(model::Frame& frame, const std::string& function, const std::string& location) {
  if (function != "??") frame.function = function;
  const auto colon = location.rfind(':');
  if (colon == std::string::npos) return;
  const std::string file = location.substr(0, colon);
  if (file == "??") return;
  frame.file = file;
  frame.line = std::atoi(location.c_str() + colon + 1);
}

}  // namespace

bool symbolize(std::vector<model::Callsite>& callsites) {
  std::map<std::string, std::vector<model::Frame*>> by_module;
  for (auto& c : callsites) {
    for (auto& f : c.frames) {
      if (f.module != "?") by_module[f.module].push_back(&f);
    }
  }
  bool ok = true;
  for (auto& [module, frames] : by_module) {
    for (std::size_t first = 0; first < frames.size(); first += kAddressesPerRun) {
      const std::size_t n = std::min(kAddressesPerRun, frames.size() - first);
      std::vector<std::uint64_t> offsets;
      for (std::size_t i = 0; i < n; ++i) offsets.push_back(frames[first + i]->offset);
      std::vector<std::string> lines;
      if (!run_addr2line(module, offsets, lines)) {
        ok = false;
        continue;
      }
      for (std::size_t i = 0; i < n; ++i) apply(*frames[first + i], lines[2 * i], lines[2 * i + 1]);
    }
  }
  return ok;
}

}  // namespace mpidle::profiler
