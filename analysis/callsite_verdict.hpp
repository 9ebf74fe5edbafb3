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
// With root causes (a trace's, delay_analysis.hpp, or the windows',
// window_delays.hpp), waiting splits further:
// `waiting` is then a partner late because of its computation (imbalance),
// `waiting_for_communication` one late because of its own communication time, and
// `waiting_propagated` one late because it waited at another callsite.
enum class Dominant {
  waiting,
  waiting_or_transfer,
  latency,
  bandwidth,
  propagated,
  waiting_for_communication,
  waiting_propagated
};
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

// A callsite's waiting by root cause (seconds), from a delay analysis.
struct WaitCauses {
  double computation = 0, communication = 0, propagated = 0;
};

// Where waiting dominates (`waiting` or `propagated` above) and the root causes say why:
// the cause with the larger part of the waiting decides (computation: waiting,
// communication: waiting_for_communication, propagated: waiting_propagated). Other
// verdicts, and waiting without causes, stay as they are.
Dominant dominant_by_causes(Dominant verdict, const WaitCauses& causes);

}  // namespace mpidle::analysis
