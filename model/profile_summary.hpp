#pragma once
// What the finalize tree merges and rank 0 writes (docs/profile-format.md, "How the
// ranks' tables meet"). Each rank turns its own tables into a RankSummary: its row,
// and its share of every callsite it visited, with wait against its own minima and
// against the global minima. Everything else is an aggregate whose size does not grow
// with the number of ranks: function totals, callsites, and the global minima, which
// are reduced over the same tree first and handed back down. No MPI here.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "calibration.hpp"
#include "duration_histogram.hpp"
#include "profile_tables.hpp"
#include "region_totals.hpp"
#include "wait_estimates.hpp"

namespace mpidle::model {

// The fastest call of (function, size class, communicator shape) on any rank and peer.
struct GlobalMinimum {
  std::string function;
  std::int32_t size_class = 0;
  std::int32_t comm_shape = kNoCommShape;
  double min_s = 0;
  std::int32_t rank = 0;        // a rank where it was seen (the lowest among equals)
  std::uint64_t count = 0;      // visits with this key, all ranks
  std::uint32_t ranks = 0;      // ranks that made such a call
  DurationHistogram durations;  // of every rank's timed calls with this key
};

// Sorted by (function, size class, shape).
using GlobalMinima = std::vector<GlobalMinimum>;

// One rank's visits of one (callsite, function).
struct CallsiteShare : WaitEstimates {
  std::uint32_t callsite = 0;
  std::uint32_t function = 0;
  std::uint64_t visits = 0;
  double time_s = 0, bytes = 0;
};

// The durations of one (callsite, function)'s calls over every rank: a sum whose
// size does not grow with the number of ranks.
struct CallsiteDurations {
  std::uint32_t callsite = 0;
  std::uint32_t function = 0;
  DurationHistogram durations;
};

// A rank's own minimum of one (function, size class, peer, communicator shape): what
// its local wait was measured against, with the visits it covers, their bytes and
// their wait against it (the report's rank × peer matrix adds these up).
struct LocalMinimum {
  std::uint32_t function = 0;
  std::int32_t size_class = 0, peer = kNoPeer, comm_shape = kNoCommShape;
  double min_s = 0;
  std::uint64_t count = 0;
  double bytes = 0, wait_s = 0;
};

struct RankSummary : WaitEstimates {
  std::int32_t rank = 0;
  std::string host;
  double wall_s = 0, mpi_s = 0, first_call_wait_s = 0;
  std::uint64_t calls = 0, dropped_calls = 0, memory_bytes = 0, untracked_requests = 0;
  std::uint64_t untimed_calls = 0;
  // What the trace finalize added at its peak, included in memory_bytes; set on
  // rank 0 after the trace finalize, so never encoded between ranks.
  std::uint64_t finalize_memory_bytes = 0;
  std::uint64_t finalize_anonymous_bytes = 0;  // its part in anonymous memory (the same)
  std::vector<CallsiteShare> shares;           // sorted by (callsite, function)
  std::vector<LocalMinimum> minima;            // bounded by the rank's table, not by P
};

struct FunctionTotals : WaitEstimates {
  std::uint64_t calls = 0, incomplete_calls = 0;
  double time_s = 0, bytes = 0;
};

struct ProfileSummary {
  std::vector<std::string> functions;
  std::vector<FunctionTotals> function_totals;  // parallel to `functions`
  std::vector<Callsite> callsites;
  std::vector<RankSummary> ranks;  // sorted by rank
  GlobalMinima minima;
  std::vector<CallsiteDurations> callsite_durations;  // sorted by (callsite, function)
  std::vector<RegionTotals> regions{};                // sorted by path
};

// The robust baseline of each key, from its global histogram (wait_baseline.hpp).
double robust_baseline_s(const GlobalMinimum& m);

// The baseline each key's wait is measured against, parallel to `global`: its robust
// baseline, bounded for blocking point-to-point by its partner's. A receive that
// waits the same every step has its waiting as its lowest cluster, but the sends of
// the same size class show what moving such a message costs (and the receives, for
// sends that wait for a late receiver); a key's baseline is at most
// kPartnerCostRatio times the lower of its partners'.
inline constexpr double kPartnerCostRatio = 4;
std::vector<double> robust_baselines(const GlobalMinima& global);

// Per message size class, the time one transfer takes: the robust baseline of the
// blocking receives of that size (else of the blocking sends). Completion calls
// holding a transfer of that size count this much per call as transfer, not wait.
using TransferTimes = std::map<std::int32_t, double>;
TransferTimes transfer_times(const GlobalMinima& global, const std::vector<double>& baselines);

// The minima of one rank's tables, as the start of the global reduction.
GlobalMinima minima_of(const ProfileTables& tables);
// Keeps the smaller minimum of each key and adds up counts and ranks.
void merge_minima(GlobalMinima& into, const GlobalMinima& from);

// One rank's summary (tables holding that rank only), given the global minima and,
// where trace windows (or a whole trace) calibrated some keys, their baselines.
ProfileSummary summarize_rank(const ProfileTables& tables, const GlobalMinima& global,
                              const Calibration* calibration = nullptr);
// One tree step: unifies functions and callsites, adds function totals, appends ranks.
void merge_summaries(ProfileSummary& into, const ProfileSummary& from);

// The whole finalize without MPI, for tables that already hold every rank (tests,
// synthetic inputs): each rank summarized against the global minima, then merged.
ProfileSummary summarize_all(const ProfileTables& tables);

}  // namespace mpidle::model
