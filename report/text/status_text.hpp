#pragma once
// `mpidle status`: a job that has not finished (running, hung or killed), as its
// ranks' checkpoints and stall notes show it (model/checkpoint_merge.hpp). Reads
// files only; never touches the job.

#include <cstddef>
#include <map>
#include <string>

#include "model/checkpoint_file.hpp"
#include "model/profile_reader.hpp"

namespace mpidle::report {

struct StatusOptions {
  std::size_t top = 5;     // callsites
  std::size_t ranks = 16;  // rank rows; the rest are counted by state
};

// What one rank is doing as of `now_unix_s`, from its latest checkpoint and its
// stall note (if newer): "in MPI_Recv; no MPI call ended for 14 min 2 s".
struct RankState {
  enum Kind { ended, stalled, on_time, silent, none } kind = none;
  std::string text;
};
RankState rank_state(const model::CheckpointRank* checkpoint, const model::StallNote* note,
                     double now_unix_s);

// The whole view of one run merged from its checkpoints (profile.checkpoints set).
std::string format_status(const model::Profile& profile,
                          const std::map<int, model::StallNote>& notes, double now_unix_s,
                          const StatusOptions& options);

// "14 min 2 s", "3 h 5 min", "12 s".
std::string duration_text(double seconds);

}  // namespace mpidle::report
