#pragma once
// What dominates a callsite where it costs more, in two runs of one program (two
// clusters, two configurations), and what would help: the policy behind `mpidle
// compare`'s per-callsite advice (report/text/compare.hpp shows it).

namespace mpidle::analysis {

// `waiting_or_transfer`: time above the baseline of completion calls (Wait*) that
// the profile cannot split between a late partner and the transfer they held.
// `propagated`: waiting that grew with the slower run's communication, not with its
// load imbalance: a partner late because of its own transfers (Scalasca's delay
// analysis names such waiting by its cause; a profile can only see that the growth
// fits communication, not imbalance).
enum class Dominant { waiting, waiting_or_transfer, latency, bandwidth, propagated };
const char* dominant_name(Dominant d);
const char* dominant_advice(Dominant d);

// Messages of at most this many bytes per visit count as latency-bound.
inline constexpr double kLatencyBoundBytes = 16 * 1024;

// The callsite in the run where it takes longer (sums over ranks, seconds).
struct CallsiteCost {
  double time = 0, wait = 0;
  double wait_or_transfer = 0;  // the part of wait that may be transfer (robust estimate)
  double bytes_per_visit = 0;
};

// How the callsite's waiting changed from the run where it costs less to the one
// where it costs more, beside how the runs' load imbalance (Σ over ranks of the
// most useful time less the mean) and MPI processing changed.
struct WaitGrowth {
  bool in_both = false;  // the callsite is in both runs
  double wait_higher = 0, wait_lower = 0;
  double imbalance_grew = 0, processing_grew = 0;
};

// Waiting dominates where it is at least half the time (never for time that may be
// the transfer a Wait held); it is propagated where it at least doubled, by more
// than the load imbalance grew and less than MPI processing grew. Otherwise the
// bytes per visit say latency or bandwidth.
Dominant dominant_of(const CallsiteCost& cost, const WaitGrowth& growth);

}  // namespace mpidle::analysis
