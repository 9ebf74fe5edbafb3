#pragma once
// Who ran what, where: the batch job around a run (detected from the scheduler's
// environment), the executable's identity and the user's own key=value pairs
// (MPIDLE_METADATA). profile.json's "job" section and the fleet's job records
// hold it. No MPI.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "settings/settings.hpp"

namespace mpidle::fleet {

struct JobMetadata {
  std::string scheduler = "none";  // slurm, pbs, lsf, flux or none
  std::string job_id, step, array_index;
  std::string user, account, partition;  // partition: Slurm's partition, PBS/LSF's queue
  std::string job_name;
  std::int64_t nodes_allocated = 0;  // as the scheduler says; 0 if it does not
  std::string node_list;             // the scheduler's own (Slurm's "n[01-64]"), or ""
  std::map<std::string, std::string> user_metadata;  // MPIDLE_METADATA
  std::string executable;                            // its path
  std::string executable_id;  // "build-id:<hex>" (ELF note) or "fnv1a64:<hex>" (content)
};

// At most this many MPIDLE_METADATA pairs, keys and values cut to these lengths:
// the job record stays small whatever the user passes.
inline constexpr std::size_t kMaxUserMetadata = 32;
inline constexpr std::size_t kMaxMetadataKey = 64;
inline constexpr std::size_t kMaxMetadataValue = 256;
inline constexpr std::size_t kMaxNodeList = 4096;

// The scheduler and job from the environment, and the user (`user` when no
// scheduler names one: the login name of the process).
JobMetadata detect_job(const settings::EnvLookup& environment, const std::string& user);

// The login name of account `uid`, or its number where the system knows no name
// for it (never $USER, which any job may set). A job's user is named so, and the
// fleet names a record's owner so to compare the two.
std::string account_name(unsigned uid);

// "k=v,k2=v2" (',' or ';' between pairs). A pair without '=' or with an empty key
// adds one warning and is skipped.
std::map<std::string, std::string> parse_user_metadata(const std::string& text,
                                                       std::vector<std::string>& warnings);

// The executable's GNU build id (its ELF note), or else a hash of its content;
// "" if the file cannot be read.
std::string executable_identity(const std::string& path);

// profile.json's "job" section: the metadata plus what the run itself knows
// (nodes and ranks per node from the ranks' hosts, start and end).
nlohmann::json job_json(const JobMetadata& job, const std::vector<std::string>& rank_hosts,
                        const std::string& start, const std::string& end,
                        const std::string& mpi_library);

}  // namespace mpidle::fleet
