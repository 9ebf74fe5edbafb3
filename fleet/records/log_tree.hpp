#pragma once
// The site-wide log tree (MPIDLE_LOG_DIR): LOG_DIR/YYYY/MM/DD/<run>/, one directory
// per run, as Darshan's log tree. A run is written into a hidden staging directory
// beside its final place and renamed there when whole, so that a reader (the fleet
// ingester) sees a run whole or not at all; a rename never replaces another run.
// No MPI.

#include <ctime>
#include <filesystem>
#include <optional>
#include <string>

namespace mpidle::fleet {

// LOG_DIR/YYYY/MM/DD for the local date of `when`.
std::filesystem::path log_day_directory(const std::filesystem::path& log_dir, std::time_t when);
// Whether `dir` is such a day directory (its last three parts YYYY/MM/DD).
bool is_log_day_directory(const std::filesystem::path& dir);

// "<user>_<exe>_<jobid>_<HHMMSS>" ("nojob" without a job id); characters other than
// letters, digits, '.', '+' and '-' become '-', so a name never makes a path.
std::string log_run_name(const std::string& user, const std::string& executable,
                         const std::string& job_id, std::time_t when);

// Whether a run directory's name may belong to `user`: false only for a name that
// log_run_name makes (four '_'-separated fields, the last HHMMSS or HHMMSS-N) whose
// first field is another user's. A directory named otherwise says nothing of its
// user.
bool log_run_name_may_be_of(const std::string& name, const std::string& user);

// Staging directories start with '.' and end so; readers skip them.
inline constexpr const char* kStagingSuffix = ".incomplete";
bool is_staging_name(const std::string& name);

struct LogRun {
  std::filesystem::path staging;  // where the ranks write
  std::filesystem::path final_path;
};

// Creates the day directory if needed (a user's own tree; a centre's tree has it
// made by `mpidle logdir init`) and a staging directory for `name` whose final name
// is free: "name", else "name-2", "name-3", ... `error` says why not, if not.
std::optional<LogRun> reserve_log_run(const std::filesystem::path& day_directory,
                                      const std::string& name, std::string& error);

// Renames the staging directory to its final place, or to the next free "-N" name
// if another run took it meanwhile; returns where it went, or "" with `error`.
std::filesystem::path publish_log_run(const LogRun& run, std::string& error);

// One rank's partial profile (staging/partial/rank-N), published when the rank ends
// without MPI_Finalize: the first rank to get here renames the whole staging
// directory; a later one finds the run published and moves its own rank-N into it.
// Returns the rank's directory in the published run, or "" with `error`.
std::filesystem::path publish_partial_rank(const LogRun& run, const std::string& rank_directory,
                                           std::string& error);

}  // namespace mpidle::fleet
