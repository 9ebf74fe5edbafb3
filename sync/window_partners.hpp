#pragma once
// What the wait-state analysis needs of the other side of a trace window's
// collectives, found without a replay (docs/calibration.md, "Finalize cost"). A
// window's records are few and their clocks already on the reference timeline;
// following the dependency chain message by message (the parallel replay) costs
// one round trip per link of the chain. Here each member reports its part of an
// instance to the instance's home process, which judges the whole instance by
// analyze_wait_states' rules and answers every member: two exchanges, whatever
// the chain. Point-to-point partners come with the window alignment's own two
// exchanges (profiler/finalize/window_calibration).
//
// Every time is carried on two timelines: the reference clock (rank 0's, by the
// offsets measured at both ends of the run) and each rank's raw clock. Offsets
// measured on a busy node can be wrong by more than a small collective lasts; as
// the trace's clock plan does (sync/clock_plan.hpp), the timeline whose clock
// conditions hold more often is the one used, which every rank learns from one
// reduction of the violations counted here. Pure C++, no MPI.

#include <array>
#include <cstdint>
#include <vector>

#include "model/byte_stream.hpp"
#include "parallel_sync.hpp"

namespace mpidle::sync {

// A time on both timelines.
inline constexpr int kReferenceClock = 0, kRawClock = 1;
using BothClocks = std::array<std::int64_t, 2>;

// One member's part of one collective instance.
struct CollectiveReport {
  std::uint64_t instance = 0;
  BothClocks enter_ns{};
  BothClocks exit_ns{};  // where whole
  std::uint32_t comm = 0;
  std::uint32_t item = 0;  // index in the member's items.collectives, sent back
  std::int32_t rank = -1;  // world rank
  std::int32_t order = 0;  // scans: rank in the communicator; else the world rank
  std::int32_t root = model::kTraceNoRoot;
  std::int32_t members = 0;  // the communicator's size as the record's shape says; < 2: unknown
  std::uint8_t kind = 0;     // model::CollectiveKind
  std::uint8_t whole = 0;    // entered and left in one blocking call
};

// The home's answer for one report.
struct CollectiveVerdict {
  std::int32_t rank = -1;
  std::uint32_t item = 0;
  BothClocks until{kClcNever, kClcNever};
  // Per timeline: the member whose entry is `until` (who was waited for), or -1.
  std::array<std::int32_t, 2> cause_rank{-1, -1};
  std::uint8_t complete = 0;
};

// The reports of a rank: `reference` holds its records' times on the reference
// clock (2 per record, as RankTrace::synced), the records their raw times.
std::vector<CollectiveReport> collective_reports(const model::RankTrace& rank,
                                                 const model::LargeArray<std::int64_t>& reference,
                                                 const RankMatchItems& items);

// The process (of `processes`) that judges an instance: spread by instance, so that
// no process gets every instance of MPI_COMM_WORLD.
int home_of(std::uint32_t comm, std::uint64_t instance, int processes);

// Every report a home received (all members' parts of its instances, in any order):
// one verdict per report. An instance is complete when all of its communicator's
// members reported it whole (two at least); `complete` counts those instances, and
// `violations` (per timeline) the members that left less than `latency_ns` after
// the time they waited for (nobody leaves an N-to-N before the last has entered
// and its message could arrive), as the replay's clock check counts them.
std::vector<CollectiveVerdict> judge_collectives(std::vector<CollectiveReport> reports,
                                                 std::uint64_t* complete,
                                                 std::array<std::uint64_t, 2>* violations = nullptr,
                                                 std::int64_t latency_ns = 0);

// Verdicts for one rank into its partners (until, complete and cause_rank, per
// collective item), on `clock` (kReferenceClock or kRawClock).
void apply_verdicts(RankPartners& partners, const std::vector<CollectiveVerdict>& verdicts,
                    int clock);

// Wire form, inside a larger parcel: a count, then the records. Reading returns
// false on a short buffer.
void write_reports(model::ByteWriter& w, const std::vector<CollectiveReport>& reports);
bool read_reports(model::ByteReader& r, std::vector<CollectiveReport>& out);
void write_verdicts(model::ByteWriter& w, const std::vector<CollectiveVerdict>& verdicts);
bool read_verdicts(model::ByteReader& r, std::vector<CollectiveVerdict>& out);

}  // namespace mpidle::sync
