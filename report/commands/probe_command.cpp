// mpidle probe: measures this machine's model for `mpidle predict` by running
// mpidle-probe (an MPI microbenchmark built with mpidle) under the user's launcher.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "model/machine_launches.hpp"
#include "report/commands/command.hpp"
#include "report/launch/launcher.hpp"
#include "report/launch/spawn.hpp"

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

// One line per launch and for the merged model: what moves between launches.
void print_launch(const char* label, const model::MachineModel& m) {
  const auto& points = m.p2p.points;
  const auto near =
      std::min_element(points.begin(), points.end(), [](const auto& a, const auto& b) {
        return std::llabs(static_cast<long long>(a.bytes) - 65536) <
               std::llabs(static_cast<long long>(b.bytes) - 65536);
      });
  std::printf("mpidle probe: %s: %llu B one-way %.2f us", label,
              near == points.end() ? 0ULL : static_cast<unsigned long long>(near->bytes),
              near == points.end() ? 0.0 : near->seconds * 1e6);
  if (near != points.end() && near->launch_spread > 0) {
    std::printf(" (launches %.1f%% apart)", 100 * near->launch_spread);
  }
  if (m.compute) {
    std::printf(", memory-bound kernel %.4f s, compute-bound kernel %.4f s",
                m.compute->memory_bound_s, m.compute->compute_bound_s);
    if (m.launches > 1) {
      std::printf(" (launches %.1f%% and %.1f%% apart)",
                  100 * m.compute->memory_bound_launch_spread,
                  100 * m.compute->compute_bound_launch_spread);
    }
  }
  std::printf("\n");
}

}  // namespace

int probe_command(Args args) {
  std::string output = "machine.json", name;
  bool quick = false;
  int launches = 1;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--quick") {
      quick = true;
    } else if (a == "--launches") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      const double n = number_option(a, args[++i]);
      if (!(n >= 1 && n <= 20 && n == static_cast<int>(n))) {
        throw UsageError("--launches is a whole number from 1 to 20");
      }
      launches = static_cast<int>(n);
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
  auto launch = [&](const fs::path& file) {
    std::vector<std::string> command = forward_environment(launcher, family, {}, geteuid() == 0);
    command.push_back(probe.string());
    command.push_back("--output");
    command.push_back(fs::absolute(file).string());
    if (!name.empty()) {
      command.push_back("--name");
      command.push_back(name);
    }
    if (quick) command.push_back("--quick");
    const int status = run_and_wait(command, {});
    if (status != 0)
      std::fprintf(stderr, "mpidle probe: the probe failed (exit status %d)\n", status);
    return status;
  };
  if (launches == 1) return launch(output);
  // Several launches: each to a file of its own beside the output, then one model
  // of their medians (model/machine_launches.hpp).
  std::vector<model::MachineModel> models;
  std::vector<fs::path> files;
  int status = 0;
  for (int k = 1; k <= launches && status == 0; ++k) {
    files.push_back(fs::path(output).concat(".launch" + std::to_string(k)));
    status = launch(files.back());
    if (status == 0) {
      models.push_back(model::read_machine(files.back()));
      print_launch(("launch " + std::to_string(k) + "/" + std::to_string(launches)).c_str(),
                   models.back());
    }
  }
  std::error_code ec;
  for (const auto& f : files) fs::remove(f, ec);
  if (status != 0) return status;
  const model::MachineModel merged = model::merge_launches(models);
  model::write_machine(output, merged);
  print_launch(("median of " + std::to_string(launches) + " launches").c_str(), merged);
  std::printf("mpidle probe: wrote %s\n", output.c_str());
  return 0;
}

}  // namespace mpidle::report
