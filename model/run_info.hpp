#pragma once
// What profile.json says about the run itself ("run" section).

#include <cstdint>
#include <string>
#include <vector>

namespace mpidle::model {

// Version 2 replaced per-callsite `by_rank` arrays and per-rank minima (O(P × callsites))
// with rank statistics and a side file; version 1 files are still read.
inline constexpr const char* kProfileSchema = "mpidle-profile/2";
inline constexpr const char* kProfileSchemaV1 = "mpidle-profile/1";
// The rank × callsite matrix of a version-2 profile, next to profile.json.
inline constexpr const char* kRankMatrixFile = "callsite_ranks.bin";
// Every rank's own minima (JSON Lines, one rank per line), next to profile.json.
inline constexpr const char* kRankMinimaFile = "rank_minima.jsonl";

// This build's version ("0.1.0"), as every output records it.
const char* mpidle_version();
// "mpidle 0.1.0": the `producer` of analysis.json, prediction.json and machine files.
inline std::string mpidle_producer() {
  return std::string("mpidle ") + mpidle_version();
}

struct RunInfo {
  std::string executable;
  std::vector<std::string> args;
  std::string mpi_library;
  std::string start;  // ISO 8601, UTC
  double wall_s = 0;
  std::string timer;
  double timer_resolution_s = 0;
  std::string mode = "profile";
  // Which estimate `wait_s` holds and the reports show: "robust", "minimum" or
  // "global" (docs/profile-format.md, "Two wait estimates"). Every estimate is in
  // profile.json under its own name whatever this says.
  std::string wait_estimate = "robust";
  std::int32_t callsite_depth = 1;
  double per_call_overhead_s = 0;
  // A poll left out of the timing sample: its table update alone.
  double per_untimed_call_overhead_s = 0;  // measured cost of one intercepted call's bookkeeping
  double setup_s = 0;         // rank 0's profiler set-up inside MPI_Init, outside wall_s
  std::string built_for_mpi;  // the MPI libmpidle was built for ("mpich", "openmpi")
  // How the profiled ranks ended: "MPI_Finalize" (the whole run), or for one rank's
  // partial profile "MPI_Abort" or "exit" (exit without MPI_Finalize).
  std::string ended = "MPI_Finalize";
};

}  // namespace mpidle::model
