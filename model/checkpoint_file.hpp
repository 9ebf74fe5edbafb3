#pragma once
// A rank's profile checkpoint (docs/centre.md, "Checkpoints"): what one rank has
// recorded so far, written during the run to RUN/checkpoints/rank-N so that a job
// killed at any moment keeps its profile up to then. The file holds the rank's
// summary against its own minima (no other rank can be asked during the run), its
// minima, and a JSON header with the run's and the job's description. No MPI.
//
//   "MPIDLECP" | u32 version | header JSON | minima | summary | u64 FNV-1a of all before

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "profile_summary.hpp"
#include "run_info.hpp"

namespace mpidle::model {

inline constexpr const char* kCheckpointDirectory = "checkpoints";
inline constexpr std::uint32_t kCheckpointVersion = 1;

// "rank-N", and N from such a name (-1 for any other name).
std::string checkpoint_name(int rank);
int checkpoint_rank(std::string_view name);

struct CheckpointHeader {
  std::int32_t rank = 0, size = 0;
  std::uint64_t sequence = 0;  // 1 for the rank's first checkpoint
  double written_unix_s = 0;   // when it was written (the rank's clock)
  double wall_s = 0;           // the rank's time since MPI_Init then
  double interval_s = 0;       // MPIDLE_CHECKPOINT: when the next one is due
  // What checkpoints cost the rank: this one's making (tables to bytes), and the
  // previous one's whole time, its write and rename included (0 for the first).
  double build_s = 0, previous_s = 0;
  // "checkpoint" for one written during the run; the signal's or function's name
  // ("SIGTERM", "MPI_Abort", "exit") for the last one a rank wrote as it ended.
  std::string ended = "checkpoint";
  RunInfo run;
  nlohmann::json job = nlohmann::json::object();  // profile.json's "job" section
};

struct Checkpoint {
  CheckpointHeader header;
  GlobalMinima minima;  // the rank's own
  ProfileSummary summary;
};

std::string encode_checkpoint(const Checkpoint& checkpoint);
// Throws std::runtime_error with a one-line reason for anything but a whole,
// well-formed checkpoint.
Checkpoint decode_checkpoint(std::string_view bytes);

// What a rank's watcher notes when no MPI call ended across a checkpoint's time
// (RUN/checkpoints/rank-N.stall, JSON): which call each thread is in ("" for none:
// computing), and since when no call has ended. Superseded by a later checkpoint.
inline constexpr const char* kStallSuffix = ".stall";
struct StallNote {
  std::int32_t rank = 0;
  double as_of_unix_s = 0;
  double no_call_ended_since_unix_s = 0;
  std::uint64_t last_checkpoint_sequence = 0;
  std::vector<std::string> threads;  // each thread's current MPI call, "" outside MPI
};
// nullopt for a missing or malformed note.
std::optional<StallNote> read_stall_note(const std::filesystem::path& file);

nlohmann::json run_info_json(const RunInfo& run);
RunInfo run_info_of(const nlohmann::json& j);

}  // namespace mpidle::model
