#pragma once
// MPIDLE_LOG_DIR at MPI_Init: rank 0 chooses the run's place in the log tree and
// reserves its staging directory; every rank learns it (one broadcast down the
// tree) and writes there, as into MPIDLE_OUTPUT. Rank 0 publishes the run when it
// is whole; a rank that ends without MPI_Finalize publishes its partial profile.

#include <mpi.h>

#include <optional>
#include <string>

#include "fleet/records/log_tree.hpp"
#include "settings/settings.hpp"

namespace mpidle::profiler {

struct LogLocation {
  std::optional<fleet::LogRun> run;  // none without MPIDLE_LOG_DIR (or with MPIDLE_OUTPUT)
  bool unusable = false;             // the tree could not take the run: write nothing
};

// Collective over `comm`. Sets config.output to the staging directory.
LogLocation choose_log_location(settings::Settings& config, MPI_Comm comm, int rank);

// The login name of this process' user (or its uid).
std::string process_user();
// The program this process runs (its real path), or "unknown".
std::string executable_path();

}  // namespace mpidle::profiler
