#pragma once
// The data model that crosses from the profiler's finalize step to the report:
// per-rank minimum-method tables keyed by (callsite, function, size class, peer).
// Plain values only; no MPI.

#include <cstdint>
#include <string>
#include <vector>

#include "duration_histogram.hpp"

namespace mpidle::model {

// Size class of a message: 0 for 0 bytes, else floor(log2(bytes)) + 1.
// A Test-family call that completed nothing uses kSizeClassIncomplete.
inline constexpr std::int32_t kSizeClassIncomplete = -1;
// Peer for calls without a single partner (the world rank otherwise).
inline constexpr std::int32_t kNoPeer = -1;

// The communicator's shape in a minimum's key (docs/profile-format.md, "The
// minimum's key"): 0 for calls keyed by their peer alone (point-to-point) or
// without a communicator, n for an intracommunicator of n ranks, and −(local +
// remote group size) for an intercommunicator. A collective's cost depends on how
// many ranks take part, so an Allreduce on a one-rank communicator must not set
// the minimum of the same Allreduce on MPI_COMM_WORLD.
inline constexpr std::int32_t kNoCommShape = 0;
constexpr std::int32_t comm_size_of(std::int32_t shape) {
  return shape < 0 ? -shape : shape;
}
constexpr bool is_intercomm(std::int32_t shape) {
  return shape < 0;
}

constexpr std::int32_t size_class(std::uint64_t bytes) {
  return bytes == 0 ? 0 : 64 - __builtin_clzll(bytes);
}

// One stack frame of a callsite; (module, offset) is its identity across ranks,
// the rest is filled in by symbolization.
struct Frame {
  std::string module;
  std::uint64_t offset = 0;
  std::string function;
  std::string file;
  std::int32_t line = 0;
};

// A frame as captured: where the return address lies, before symbolization.
struct RawFrame {
  std::string module;
  std::uint64_t offset = 0;
  bool operator==(const RawFrame&) const = default;
};

struct Callsite {
  std::vector<Frame> frames;  // innermost first
  // Set when several raw callsites symbolized to the same frames and were merged
  // into this one (callsite_merge.hpp): the raw stacks, this one's first.
  std::vector<std::vector<RawFrame>> merged_from;
};

// Aggregate of all visits that share (callsite, function, size class, peer) on one rank.
struct Entry {
  std::uint32_t callsite = 0;  // index into ProfileTables::callsites
  std::uint32_t function = 0;  // index into ProfileTables::functions
  std::int32_t size_class = 0;
  std::int32_t peer = kNoPeer;
  std::uint64_t visits = 0;
  double time_s = 0;
  double min_s = 0;
  double bytes = 0;
  std::int32_t comm_shape = kNoCommShape;
  DurationHistogram durations{};  // the timed visits' durations
  std::uint32_t region = 0;       // index into ProfileTables::regions (0: outside every region)
};

// The first call of a function on a rank: its wait is mostly startup skew.
struct FirstCall {
  std::uint32_t function = 0;
  std::int32_t size_class = 0;
  std::int32_t peer = kNoPeer;
  double time_s = 0;
  std::int32_t comm_shape = kNoCommShape;
};

struct RankData {
  std::int32_t rank = 0;
  std::string host;
  double wall_s = 0;
  std::uint64_t dropped_calls = 0;  // calls not recorded because a table was full
  std::uint64_t memory_bytes = 0;   // the profiler's tables on this rank
  // Requests and matched-probe messages that found no slot in the request table:
  // their completions were recorded without peer and received bytes.
  std::uint64_t untracked_requests = 0;
  // Polls whose time was estimated, not read (MPIDLE_POLL_SAMPLE).
  std::uint64_t untimed_calls = 0;
  std::vector<Entry> entries;
  std::vector<FirstCall> first_calls;
  // Parallel to ProfileTables::regions (shorter when the rank entered fewer): the
  // rank's time inside each region, nested ones included, and how often it entered.
  std::vector<double> region_wall_s{};
  std::vector<std::uint64_t> region_visits{};
};

// Tables of one or more ranks, with function names and callsites unified.
struct ProfileTables {
  std::vector<std::string> functions;
  std::vector<Callsite> callsites;
  std::vector<RankData> ranks;  // sorted by rank after merge
  // Region paths (region_totals.hpp); the first, "", is the program outside every
  // region. Empty when the run marked none.
  std::vector<std::string> regions{};
};

}  // namespace mpidle::model
