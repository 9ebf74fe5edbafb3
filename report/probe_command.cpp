// mpidle probe: measures this machine's model for `mpidle predict` by running
// mpidle-probe (an MPI microbenchmark built with mpidle) under the user's launcher.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "command.hpp"
#include "launcher.hpp"
#include "spawn.hpp"

namespace mpidle::report {

namespace fs = std::filesystem;

namespace {

fs::path find_probe() {
  if (const char* env = std::getenv("MPIDLE_PROBE")) return env;
  const fs::path candidate = self_directory() / "mpidle-probe";
  std::error_code ec;
  if (fs::exists(candidate, ec)) return candidate;
  throw UsageError("cannot find mpidle-probe next to " + self_directory().string() +
                   " (this mpidle was built without MPI; set MPIDLE_PROBE to its path)");
}

}  // namespace

int probe_command(Args args) {
  std::string output = "machine.json", name;
  bool quick = false;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--quick") {
      quick = true;
    } else if (a == "--output" || a == "-o" || a == "--name") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      (a == "--name" ? name : output) = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option " + a + " (put the launcher after --)");
    } else {
      break;
    }
  }
  std::vector<std::string> launcher(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (launcher.empty()) throw UsageError("no launcher (mpidle probe -- mpiexec -n 2)");
  const fs::path probe = find_probe();
  const LauncherFamily family = recognize_launcher(launcher, launcher_version);
  check_launcher_matches_build(family, launcher[0]);
  std::vector<std::string> command = forward_environment(launcher, family, {}, geteuid() == 0);
  command.push_back(probe.string());
  command.push_back("--output");
  command.push_back(fs::absolute(output).string());
  if (!name.empty()) {
    command.push_back("--name");
    command.push_back(name);
  }
  if (quick) command.push_back("--quick");
  const int status = run_and_wait(command, {});
  if (status != 0)
    std::fprintf(stderr, "mpidle probe: the probe failed (exit status %d)\n", status);
  return status;
}

}  // namespace mpidle::report
