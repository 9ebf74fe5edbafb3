#pragma once
// A run that never reached MPI_Finalize, from its ranks' latest checkpoints
// (checkpoint_file.hpp): their summaries merged as the finalize tree would merge
// them, into the profile.json document a whole run would have, with a
// "checkpoints" section that says which ranks it holds, as of when, and which ranks
// left none. Each rank's wait is measured against its own minima and robust
// baselines, as in a partial profile. No MPI.

#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint_file.hpp"
#include "profile_writer.hpp"

namespace mpidle::model {

// Every rank-N in RUN/checkpoints; the files that cannot be read are named in
// `unreadable` ("rank-3: cut short or corrupt"), and the rest are kept.
std::vector<Checkpoint> read_checkpoints(const std::filesystem::path& run_directory,
                                         std::vector<std::string>& unreadable);

// Whether RUN has a checkpoints directory with at least one rank's file.
bool has_checkpoints(const std::filesystem::path& run_directory);

// "0-3,7,9-12": a sorted list of ranks as ranges, for a line or a JSON field that
// stays short at any number of ranks.
std::string rank_ranges(const std::vector<int>& sorted_ranks);

// The merged profile; throws std::runtime_error when `checkpoints` is empty. Files
// of another run than the newest checkpoint's (a directory used again) are left
// out and named with the unreadable ones.
ProfileDocument merge_checkpoints(std::vector<Checkpoint> checkpoints,
                                  const std::vector<std::string>& unreadable = {});

// Reads and merges RUN's checkpoints (throws as the two above).
ProfileDocument profile_from_checkpoints(const std::filesystem::path& run_directory);

}  // namespace mpidle::model
