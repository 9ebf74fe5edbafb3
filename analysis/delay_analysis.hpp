#pragma once
// Why it waited: the root causes of wait states, after Böhme, Geimer, Wolf, Arnold
// and Rodriguez, "Identifying the root causes of wait states in large-scale
// parallel applications" (ICPP 2010; ACM TOPC 3(2), 2016).
//
// A wait state on rank R, at a call that waited for rank S, is caused by a delay:
// excess time S spent, compared with R, in the synchronization interval, from the
// previous point where the two synchronized (a message between them, or a
// collective of both) to the call that ended the waiting. The time in the interval
// is split three ways on each side:
//   computation   time outside MPI
//   communication MPI time that is not waiting: latency (at most 16 KiB per call)
//                 and bandwidth (more)
//   waiting       the wait states inside the interval
// Each kind's excess, S's time less R's (0 where R spent more), takes its share
// of the waiting; within a kind, S's activities share it by their time. Waiting
// inside S's interval is not a root cause: its share is propagated waiting, and
// passes back to the wait states there, which charge it, with their own waiting,
// to their own delays (the backward replay of the paper, in order of the end of
// each wait). So:
//   short-term cost of a delay  the waiting it causes directly
//   long-term cost of a delay   the waiting it causes directly and through
//                               every wait state it propagates to
// and every callsite's waiting splits into computation, latency, bandwidth and
// propagated (from which callsites), or unexplained where S spent no more time
// than R in any kind (R left the previous synchronization later than S).
//
// Deviation from the paper: activities are compared by kind, not by call path;
// computation is located at the callsite of the MPI call that ends it.
// Pure C++, no MPI.

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "analysis/wait_states.hpp"
#include "model/trace_file.hpp"

namespace mpidle::analysis {

// Why one callsite waited (sums over its wait states, seconds).
struct WaitRootCauses {
  std::uint32_t callsite = 0, function = 0;  // the waiting callsite, as SiteWaits
  double wait_s = 0;
  double computation_s = 0, latency_s = 0, bandwidth_s = 0, propagated_s = 0, unexplained_s = 0;
  // propagated_s by the callsite (callsite, function) the partner waited at
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> propagated_from;
  // computation_s + latency_s + bandwidth_s by the delay's place (kind, callsite,
  // function: computation before that call, communication in it) and by the rank
  // (position in trace.ranks) it was on: where to look.
  std::map<std::tuple<std::uint8_t, std::uint32_t, std::uint32_t>, double> delay_places;
  std::map<std::uint32_t, double> delay_ranks;
  std::uint64_t wait_states = 0;
};

// How far back a rank's calls are searched for its previous synchronization with a
// partner; beyond it, the interval starts at the rank's first call (its window's,
// for the windows: window_delays.hpp).
inline constexpr std::uint64_t kMaxSyncSearchCalls = 4096;

enum class DelayKind : std::uint8_t { computation, latency, bandwidth };
const char* delay_kind_key(DelayKind k);  // "computation", "latency", "bandwidth"

// What a delay at one place cost: computation before the MPI call at (callsite,
// function), or communication in that call.
struct DelayCosts {
  DelayKind kind = DelayKind::computation;
  std::uint32_t callsite = 0, function = 0;
  double short_term_s = 0, long_term_s = 0;
  std::map<std::uint32_t, double> long_term_by_rank;  // position in trace.ranks → its part
};

struct DelayAnalysis {
  std::vector<WaitRootCauses> waits;  // by callsite, as WaitStates::sites
  std::vector<DelayCosts> delays;     // by place, largest long-term cost first
  double wait_s = 0, short_term_s = 0, long_term_s = 0;
};

// How a wait state's waiting divides between the kinds of the partner's excess time:
// its time in the interval less the waiter's, per kind at least 0, each as a share of
// their sum. All 0 where the partner spent no more than the waiter in any kind
// (unexplained). The same rule for the whole trace, the windows and the replay.
struct ExcessShares {
  double computation = 0, communication = 0, waiting = 0;
  bool explained() const { return computation + communication + waiting > 0; }
};
ExcessShares excess_shares(double partner_computation, double partner_communication,
                           double partner_waiting, double own_computation, double own_communication,
                           double own_waiting);

// Adds another part's sums, maps included (the replay's processes' parts merge so).
WaitRootCauses& operator+=(WaitRootCauses& into, const WaitRootCauses& from);
DelayCosts& operator+=(DelayCosts& into, const DelayCosts& from);

// Delays by long-term cost, largest first.
void sort_delays(DelayAnalysis& d);

// A delay analysis being summed: each callsite's causes and each place's delay, made
// on first use, and the totals. The whole trace's pass, the replay's processes and
// the merge of their parts sum into one.
class DelayTally {
 public:
  DelayTally() = default;
  explicit DelayTally(DelayAnalysis start);  // goes on from `start`
  // The causes of the waiting callsite, where one more wait state of `wait_s` is.
  WaitRootCauses& wait_state_at(std::uint32_t callsite, std::uint32_t function, double wait_s);
  WaitRootCauses& causes_at(std::uint32_t callsite, std::uint32_t function);
  // The delay at a place, by index (indexes stay valid as places are added).
  std::size_t delay_at(DelayKind kind, std::uint32_t callsite, std::uint32_t function);
  DelayCosts& delay(std::size_t index) { return m_sum.delays[index]; }
  // Waiting of `causes`' callsite caused directly by the delay at a place on the rank
  // at `position`: its short-term cost there. Returns the delay's index.
  std::size_t charge_short_term(WaitRootCauses& causes, DelayKind kind, std::uint32_t callsite,
                                std::uint32_t function, std::uint32_t position, double seconds);
  // Waiting the delay caused, directly or through the wait states it propagated to.
  void charge_long_term(std::size_t delay, std::uint32_t position, double seconds);
  DelayAnalysis& sums() { return m_sum; }
  DelayAnalysis take() { return std::move(m_sum); }  // unsorted (sort_delays)

 private:
  DelayAnalysis m_sum;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> m_wait_index;
  std::map<std::tuple<std::uint8_t, std::uint32_t, std::uint32_t>, std::size_t> m_delay_index;
};

// On a synchronized trace (as analyze_wait_states) and its `matching`, from the wait
// states analyze_wait_states found there (its WaitObserver's events), or finding them.
DelayAnalysis analyze_delays(const model::Trace& trace, const sync::TraceMatching& matching,
                             std::vector<WaitEvent> events);
DelayAnalysis analyze_delays(const model::Trace& trace, const sync::TraceMatching& matching);

}  // namespace mpidle::analysis
