#include "profiler/runtime/log_location.hpp"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

#include "fleet/records/job_metadata.hpp"
#include "profiler/core/log.hpp"
#include "profiler/finalize/tree_reduce.hpp"

namespace mpidle::profiler {

std::string process_user() {
  return fleet::account_name(getuid());
}

std::string executable_path() {
  char exe[PATH_MAX] = {};
  return realpath("/proc/self/exe", exe) ? exe : "unknown";
}

LogLocation choose_log_location(settings::Settings& config, MPI_Comm comm, int rank) {
  LogLocation location;
  if (config.log_dir.empty() || !config.output.empty()) return location;
  std::string chosen;  // "staging\nfinal", or "" when the tree cannot take the run
  if (rank == 0) {
    const auto job = fleet::detect_job(settings::environment_variable, process_user());
    const std::time_t now = std::time(nullptr);
    std::string error;
    const auto run = fleet::reserve_log_run(
        fleet::log_day_directory(config.log_dir, now),
        fleet::log_run_name(job.user, executable_path(), job.job_id, now), error);
    if (run) {
      chosen = run->staging.string() + "\n" + run->final_path.string();
    } else {
      warn("MPIDLE_LOG_DIR: " + error + "; this run leaves no profile");
    }
  }
  TreeTraffic traffic;
  chosen = text_of(tree_broadcast(bytes_of(chosen), comm, traffic));
  const auto newline = chosen.find('\n');
  if (newline == std::string::npos) {
    location.unusable = true;
    return location;
  }
  location.run = fleet::LogRun{chosen.substr(0, newline), chosen.substr(newline + 1)};
  config.output = location.run->staging.string();
  return location;
}

}  // namespace mpidle::profiler
