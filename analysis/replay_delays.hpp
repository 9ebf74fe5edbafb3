#pragma once
// Why it waited, on a trace too large for one process: the delay analysis
// (delay_analysis.hpp) split over the processes of a parallel replay, each holding
// the records of some ranks (mpidle-replay; transport/root_causes_tree runs the
// exchanges). No process holds another's records.
//
//  1. queries: for each wait state of its ranks, the process asks the process of
//     the rank that caused it for that rank's time in the synchronization interval
//     (from the waiter's previous synchronization with it, as window_delays.hpp).
//  2. answers: by kind, and where (RankTimeline::detail): the places of its
//     computation and communication, and its calls that waited inside.
//  3. apply: each wait state's short-term split, as the whole trace's analysis
//     makes it; its share that was the cause's own waiting is propagated, and is
//     passed back to the wait states of the calls that waited (a hop).
//  4. hops, in rounds: a wait state that hears of waiting it propagated charges it,
//     split as its own waiting was, to its delays' long-term costs, and passes its
//     propagated part further back. Each hop goes to an earlier call, so the rounds
//     end; the result is the backward replay's: long-term cost = the waiting a
//     delay caused directly and through every wait state it propagated to.
// Answers name at most kMaxAnswerPlaces places and waiting calls: what lies beyond
// counts in the split by kind, not in the places, nor passed back.
// Pure C++, no MPI.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "analysis/delay_analysis.hpp"
#include "analysis/window_delays.hpp"

namespace mpidle::analysis {

// One rank this process holds.
struct ReplayRank {
  const model::RankTrace* rank = nullptr;        // synchronized records
  std::uint32_t position = 0;                    // its index in the trace's ranks
  CallWaits call_waits;                          // rank_wait_states' per record
  std::vector<RankWaitEvent> events;             // its wait states (its WindowDelays keeps them)
  const sync::RankPartners* partners = nullptr;  // what the replay learnt: its collectives
};

class ReplayDelays {
 public:
  // `tables`: the trace's tables; `process_of`: the process holding a world rank;
  // `position_of`: its index in the trace's ranks (sync::ReplayDirectory's).
  ReplayDelays(const model::Trace& tables, std::vector<ReplayRank> ranks,
               std::function<int(std::int32_t)> process_of,
               std::function<std::int64_t(std::int32_t)> position_of);
  ReplayDelays(const ReplayDelays&) = delete;
  ReplayDelays& operator=(const ReplayDelays&) = delete;

  // Step 0: who ended each collective wait state the replay names no cause for (it
  // sums entries up a tree without saying whose). The member whose entry the
  // waiting lasted until, as the windows' verdicts say: every member's entry and
  // every such question go to a broker process per instance (by its communicator
  // and number), which answers each asking process once.
  sync::Parcels cause_requests(int processes);
  sync::Parcels cause_replies(const sync::Parcels& requests) const;  // on the broker
  void apply_causes(const sync::Parcels& replies);
  // Step 1: by process.
  sync::Parcels queries();
  // Step 2, on the process asked: one parcel back to each asking process.
  sync::Parcels answers(const sync::Parcels& queries) const;
  // Step 3: the answers, by process. Throws model::TraceError on bytes it cannot read.
  void apply(const sync::Parcels& answers);
  // Step 4: the waiting to pass back, by process (taken: cleared here), and its seconds.
  sync::Parcels take_hops(double& seconds);
  // A round's hops that reached this process.
  void receive_hops(const sync::Parcels& hops);
  // This process' part: its wait states' causes, and the delays charged here (a
  // delay's long-term cost is charged where the wait states it caused are).
  DelayAnalysis partial();  // taken

 private:
  struct Share {
    std::size_t delay = 0;  // DelayTally's index
    double part = 0;        // of the wait state's cost
  };
  struct Hop {
    std::int32_t rank = 0;  // world rank of the call that waited
    std::uint64_t record = 0;
    double part = 0;
  };
  struct Split {
    std::uint32_t cause_position = 0;
    std::vector<Share> shares;
    std::vector<Hop> hops;
  };
  struct Owned {
    ReplayRank data;
    RankTimeline timeline;
    WindowDelays windows;       // its queries, as the windows make them (one window)
    std::vector<Split> splits;  // per event
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> events_at;  // call → events
  };
  // `reply`: none where nobody answered (no partner): unexplained.
  void split_event(Owned& o, std::size_t event, const DelayReply* reply);
  void charge(Owned& o, std::size_t event, double seconds);

  std::function<int(std::int32_t)> m_process_of;
  std::function<std::int64_t(std::int32_t)> m_position_of;
  std::vector<std::unique_ptr<Owned>> m_owned;
  std::map<std::int32_t, std::size_t> m_owned_by_rank;  // world rank → m_owned
  std::map<int, std::vector<std::pair<std::size_t, std::int32_t>>>
      m_asked;                                // process → (owned, cause)
  std::map<int, std::vector<Hop>> m_pending;  // by process
  DelayTally m_tally;
};

// Merges the parts of two processes; the bytes between them.
void merge_delay_analysis(DelayAnalysis& into, DelayAnalysis&& from);
std::vector<std::byte> encode_delay_analysis(const DelayAnalysis& d);
std::optional<DelayAnalysis> decode_delay_analysis(std::span<const std::byte> bytes);

}  // namespace mpidle::analysis
