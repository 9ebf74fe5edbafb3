#pragma once
// Reads profile.json back into typed rows, checking the schema as it goes.
// Used by the `mpidle` command and by the integration tests.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "duration_histogram.hpp"
#include "json_fields.hpp"
#include "pop_metrics.hpp"
#include "profile_tables.hpp"
#include "rank_statistics.hpp"

namespace mpidle::model {

struct RunSummary {
  std::string executable;
  std::vector<std::string> args;
  std::int64_t ranks = 0;
  std::vector<std::string> hosts;
  std::string mpi_library;
  std::string start;
  double wall_s = 0;
  std::string timer;
  double timer_resolution_s = 0;
  std::string mode;
  std::string ended = "MPI_Finalize";  // or "MPI_Abort", "exit": one rank's partial profile
  std::string minimum;
  // Which estimate the rows' wait_s holds: "robust", "minimum" or "global" (a
  // profile written before the robust estimate: "minimum" or "global").
  std::string wait_estimate = "robust";
  std::int64_t callsite_depth = 1;
  double overhead_per_call_s = 0;
  double overhead_total_s = 0;
  double overhead_fraction = 0;
  double setup_s = 0;  // the profiler's set-up in MPI_Init (0 before it was recorded)
};

// A row's wait estimates (docs/profile-format.md, "Two wait estimates"): wait_s is
// the run's chosen one; the others are each estimate by name.
struct WaitColumns {
  double wait_s_robust = 0, variation_s = 0, transfer_s = 0, wait_or_transfer_s = 0;
  double wait_s_minimum = 0;
  double wait_s_calibrated = 0;  // the robust estimate in profiles from before calibration
};

struct RankRow {
  std::int64_t rank = 0;
  std::string host;
  double wall_s = 0, mpi_s = 0, wait_s = 0, wait_s_global_min = 0, first_call_wait_s = 0;
  std::uint64_t calls = 0;
  std::uint64_t dropped_calls = 0;
  std::uint64_t memory_bytes = 0;  // the tables and what the finalize added at its peak
  std::uint64_t untracked_requests = 0;
  std::uint64_t untimed_calls = 0;
  std::uint64_t finalize_memory_bytes = 0;
  std::uint64_t finalize_anonymous_bytes = 0;  // its part in anonymous memory
  WaitColumns estimates{};
};

struct FunctionRow {
  std::string name;
  std::uint64_t calls = 0;
  std::uint64_t incomplete_calls = 0;
  double time_s = 0, wait_s = 0, wait_s_global_min = 0, bytes = 0;
  WaitColumns estimates{};
  bool can_wait = true;
};

struct CallsiteRankRow {
  std::int64_t rank = 0;
  std::uint64_t visits = 0;
  double time_s = 0, wait_s = 0;
};

// Why a callsite waited, from the trace windows (profile.json's callsite
// "root_causes"): its wait split by root cause, and the wait states that rest on.
struct CallsiteCauses {
  std::uint64_t wait_states = 0;  // 0: the windows saw it wait nowhere (no split)
  double windowed_wait_s = 0;
  double computation_s = 0, latency_s = 0, bandwidth_s = 0, propagated_s = 0, unexplained_s = 0;
};

struct CallsiteRow {
  std::int64_t id = 0;
  std::string function;
  std::vector<Frame> frames;
  std::uint64_t visits = 0;
  double bytes = 0;  // all visits, all ranks (0 in profiles written before it existed)
  double time_s = 0, wait_s = 0, wait_s_global_min = 0;
  WaitColumns estimates{};
  // Durations of every rank's calls here, non-empty bins (empty in older profiles).
  DurationHistogram durations{};
  RankStatistics rank_stats;
  // Every visiting rank's share: from `by_rank` (version 1) or the rank matrix file
  // (version 2; empty when that file is missing).
  std::vector<CallsiteRankRow> by_rank;
  CallsiteCauses causes;
};

// Version 2: one row per (function, size class, communicator shape), the global
// minimum, the rank it was seen on, visits and ranks over the run. Version 1: one row
// per rank and peer as well (ranks = 1).
struct MinimumRow {
  std::string function;
  std::int64_t size_class = 0, peer = 0, rank = 0;
  double min_s = 0;
  std::uint64_t count = 0;
  std::int64_t comm_size = 0;  // 0: keyed by peer alone (profiles before it existed too)
  bool intercomm = false;
  std::uint64_t ranks = 1;
  // A rank's own row: the bytes and the wait (against min_s) of its `count` visits;
  // unknown in profiles written before the rank minima carried them.
  bool has_traffic = false;
  double bytes = 0, wait_s = 0;
  // Version 2 global rows since the robust estimate: its baseline and the durations
  // (the minimum and no bins in older profiles).
  double baseline_s = 0;
  DurationHistogram durations{};
};

// A run merged from its ranks' checkpoints (checkpoint_merge.hpp): it never
// reached MPI_Finalize.
struct CheckpointRank {
  std::int32_t rank = 0;
  double written_unix_s = 0, wall_s = 0, interval_s = 0;
  std::uint64_t sequence = 0;
  std::string ended;  // "checkpoint", or how the rank ended (a signal's name, ...)
};
struct CheckpointsSection {
  std::int64_t ranks_expected = 0, ranks_found = 0;
  std::vector<CheckpointRank> ranks;
  std::string missing_ranks;   // "3,5-9"; empty when every rank left one
  std::string oldest, newest;  // the ranks' checkpoint times, ISO 8601
  std::vector<std::string> unreadable;
};

// Trace mode only.
struct TraceSection {
  std::string file;
  std::uint64_t events = 0;
  std::vector<std::uint64_t> events_by_rank;
  std::uint64_t spills = 0;
  std::uint64_t lost_records = 0;       // records no spill file could keep
  std::uint64_t out_of_core_ranks = 0;  // ranks whose finalize kept its arrays in files
  std::vector<std::string> papi_events;
  bool papi_available = false;
  std::string papi_reason;
  std::vector<std::vector<std::int64_t>> papi_burst_totals;  // per rank, per event
};

struct SyncOffset {
  std::int64_t rank = 0;
  double init_offset_s = 0, final_offset_s = 0, drift = 0, rtt_s = 0;
  // The final measurement's round trip and the time between the two: the drift is
  // right to within (rtt_s + final_rtt_s) / 2 / span_s. 0 in older profiles.
  double final_rtt_s = 0, span_s = 0;
};

struct SyncSection {
  std::vector<SyncOffset> offsets;
  double min_latency_s = 0, gamma = 0;
  std::uint64_t violations_raw = 0, violations_before = 0, violations_after = 0, events_moved = 0;
  double max_shift_s = 0, mean_shift_s = 0, interval_change_mean = 0;
  // Message matching (absent before they existed: 0).
  std::uint64_t messages = 0, unmatched_sends = 0, unmatched_receives = 0, cancelled = 0;
  // What was decided about the clocks and the latency ("" before it was recorded).
  std::string correction, clock_reason, latency_reason;
  std::uint64_t reference_clock_ranks = 0, violations_with_offsets = 0;
  double min_latency_measured_s = 0;
};

// A code region over the run (docs/regions.md): inclusive of nested regions.
struct RegionRow {
  std::string path;  // nested names joined by '/'
  int depth = 1;
  std::uint64_t visits = 0, ranks = 0, calls = 0;
  double wall_max_s = 0, mpi_s = 0, wait_s = 0, wait_s_global_min = 0;
  WaitColumns estimates{};
  PopEfficiency efficiency{};
};

// profile.json's "calibration" (docs/calibration.md), without its keys.
struct CalibrationSection {
  std::string source;  // "windows" or "trace"
  std::uint64_t windows = 0, windows_cut = 0, windows_capped = 0, calibrated_keys = 0,
                calls_left_out = 0;
  std::uint64_t records = 0;
};

struct Profile {
  int schema_version = 2;
  std::optional<CalibrationSection> calibration;
  bool rank_matrix_missing = false;  // version 2 whose matrix file could not be read
  std::optional<TraceSection> trace;
  std::optional<SyncSection> sync;
  std::optional<CheckpointsSection> checkpoints;
  RunSummary run;
  std::vector<RankRow> ranks;
  // POP's efficiencies (profiles written before them: computed from `ranks`).
  PopEfficiency efficiency;
  std::vector<RegionRow> regions;  // parents before children (empty: none marked)
  std::vector<FunctionRow> functions;
  std::vector<CallsiteRow> callsites;
  std::vector<MinimumRow> minima;
  // Every rank's own minima: version 1's `minima`, or the rank minima file of
  // version 2 (empty when that file is missing).
  std::vector<MinimumRow> rank_minima;
};

// `path` is profile.json or a run directory holding one; reads the rank matrix
// file beside it (version 2). A run directory without profile.json whose ranks left
// checkpoints (a killed job) reads as their merge (checkpoint_merge.hpp).
Profile read_profile(const std::filesystem::path& path);
// profile.json alone: a version-2 profile's by_rank stays empty.
Profile parse_profile(const nlohmann::json& doc);
// Fills every callsite's by_rank from a version-2 profile's matrix file; false (and
// by_rank left empty) when the file is missing or does not fit the profile.
bool attach_rank_matrix(Profile& profile, const std::filesystem::path& run_directory);
bool attach_rank_matrix(Profile& profile, std::span<const std::byte> matrix_file);
// Reads a version-2 profile's rank minima file into `rank_minima`; false when it is
// missing or malformed.
bool attach_rank_minima(Profile& profile, const std::filesystem::path& run_directory);

}  // namespace mpidle::model
