#pragma once
// Wait states of one rank, from its own records and synchronized times and what the
// parallel replay learnt of the other side of its messages and collectives
// (sync::RankPartners). Merged over the ranks (merge_wait_states) they are what
// analyze_wait_states finds on the whole trace: the same patterns, the same rules.
// Pure C++, no MPI.

#include <cstdint>
#include <functional>
#include <map>
#include <utility>

#include "send_classes.hpp"
#include "sync/parallel_sync.hpp"
#include "wait_states.hpp"

namespace mpidle::analysis {

// The rank's matched blocking sends by class (send_classes.hpp), in synchronized
// time: the late-receiver rule judges by the run's, so each rank's are merged over
// all ranks first (merge_send_classes).
SendClasses send_classes(const model::RankTrace& rank, const sync::RankPartners& partners);

// Each record's wait in ns, as the patterns found it (on the call's first record).
using CallWaits = model::LargeArray<std::int64_t>;

// One wait state of the rank, as the patterns found it (WaitEvent's rank-local
// form): the waiting call (its first record), when its waiting began and ended, and
// the world rank whose send, receive post or collective entry ended it (-1 where the
// partners do not say: a collective whose verdict names no cause).
struct RankWaitEvent {
  Pattern pattern = Pattern::late_sender;
  std::uint64_t record = 0;
  std::int64_t start = 0, until = 0;  // synchronized ns, within the call
  std::int32_t cause_rank = -1;
};
using RankWaitObserver = std::function<void(const RankWaitEvent&)>;

// `position`: the rank's index in the trace (SiteWaits::by_rank's key). Counts the
// rank's records and matched receives; `collectives` stays 0 (the replay counts them).
// `call_waits`, when given, gets every record's wait; `observer` hears of every
// point-to-point and collective wait state (not the probes').
WaitStates rank_wait_states(const model::Trace& tables, const model::RankTrace& rank,
                            std::uint32_t position, const sync::RankPartners& partners,
                            const SendClasses& classes, CallWaits* call_waits = nullptr,
                            const RankWaitObserver& observer = {});

// Adds `from` into `into`: sites by (callsite, function), totals and counts.
void merge_wait_states(WaitStates& into, WaitStates&& from);

}  // namespace mpidle::analysis
