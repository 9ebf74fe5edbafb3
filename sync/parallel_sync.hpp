#pragma once
// Clock synchronization of a trace by a parallel replay (Becker, Rabenseifner,
// Wolf 2007; Scalasca's parallel trace analysis): each replay process holds the
// records of some ranks only, and walks them in order. A send passes its corrected
// time to the receiving rank's process as a replay message; a receive takes it from
// there. A collective instance's times go up and down a binomial tree of its
// communicator's members (numbered by the communicator's home process), combined
// at each member's node as the instance's kind requires. Then a backward replay
// (receivers → senders) gives the bounds of the backward amortization, and a last
// exchange checks the clock condition.
//
// The result is the sequential synchronize_trace's, to the nanosecond, for any
// number of replay processes (tests compare them). No process ever holds another
// rank's records. Phases end by quiescence (Mattern's counting: two reductions in
// a row that saw every item sent also received, and no change); a cycle in an
// inconsistent trace is broken as the sequential replay breaks it.

#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "model/trace_file.hpp"
#include "replay_network.hpp"
#include "trace_matching.hpp"
#include "trace_sync.hpp"

namespace mpidle::sync {

// Where each rank is replayed: process by world rank (−1: not in the trace).
struct ReplayDirectory {
  // World ranks 0..dense−1 in trace order, the usual case: computed, so that no
  // process holds a table of P entries. Otherwise the tables say.
  std::int32_t dense = 0;
  int processes = 1;
  std::vector<std::int32_t> process_of_rank;
  std::vector<std::uint32_t> position_of_rank;  // index in the trace's rank list
  int process_of(std::int32_t world_rank) const;
  // The index in the trace's rank list; −1: not in the trace.
  std::int64_t position_of(std::int32_t world_rank) const;
  // One more than the largest world rank.
  std::int32_t ranks() const {
    return dense > 0 ? dense : static_cast<std::int32_t>(process_of_rank.size());
  }
};

// Ranks of a trace in blocks over `processes` processes, in trace order.
ReplayDirectory block_directory(const std::vector<std::int32_t>& world_ranks_in_order,
                                int processes);

// What the replay learnt about the other side of one rank's messages and
// collectives, in synchronized time: what wait-state analysis needs (analysis/
// rank_waits), found without any rank holding another's records.
struct RankPartners {
  RankMatchItems items;  // the rank's own matching items
  // Per receive channel, for the first `matched` receives (posting order): the
  // enter of the sending call.
  std::map<ChannelKey, model::LargeArray<std::int64_t>> send_enter;
  // Per send channel, for its matched sends (call order): the enter of the record
  // that posted the receive.
  std::map<ChannelKey, model::LargeArray<std::int64_t>> posted_enter;
  // Per item of items.collectives: until when the member waited for the others
  // (the pattern's reference time), or kClcNever where no pattern applies (the
  // instance is not complete, not blocking on every member, or the member waits
  // for nobody).
  model::LargeArray<std::int64_t> until;
  // Per item of items.collectives: 1 where every member of the instance entered and
  // left it (a trace window may hold only some members' part of an instance).
  model::LargeArray<std::uint8_t> complete;
  // Per item of items.collectives: the world rank whose entry ended the member's
  // waiting (`until`), or -1. Only the trace windows' verdicts say (empty in the
  // replay's): their root causes need it (analysis/window_delays).
  model::LargeArray<std::int32_t> cause_rank;
};

class ParallelSync {
 public:
  // `ranks`: this process' ranks (as the directory says), read in full. Their
  // synchronized times are written into them at the end. params.min_latency_ns
  // must be resolved (not < 0).
  ParallelSync(ReplayNetwork& network, std::vector<model::RankTrace*> ranks,
               ReplayDirectory directory, const ClcParams& params);
  ~ParallelSync();
  ParallelSync(const ParallelSync&) = delete;
  ParallelSync& operator=(const ParallelSync&) = delete;

  // Does what can be done now; true once every process has finished.
  bool step();
  // After step() returned true: the statistics of the whole trace; `models` holds
  // this process' ranks only.
  const TraceSyncResult& result() const { return m_result; }
  // After step() returned true: the partners of this process' ranks (in the order
  // given), and how many collective instances were complete and blocking in all.
  std::vector<RankPartners> take_partners();
  std::uint64_t complete_collectives() const { return m_complete_collectives; }
  // After step() returned true: the most tree hops any collective member's answer
  // in the forward replay or the check was behind the times it depends on.
  std::uint64_t collective_rounds() const { return m_collective_rounds; }

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  TraceSyncResult m_result;
  std::uint64_t m_complete_collectives = 0;
  std::uint64_t m_collective_rounds = 0;
};

// Runs the replay of a whole trace in this process over `processes` loopback
// processes (tests; a trace small enough for one process). `partners`, when
// given, gets every rank's (by position), `complete_collectives` their count, and
// `collective_rounds` the replay's collective_rounds().
TraceSyncResult synchronize_trace_by_replay(model::Trace& trace, ClcParams params, int processes,
                                            std::vector<RankPartners>* partners = nullptr,
                                            std::uint64_t* complete_collectives = nullptr,
                                            std::uint64_t* collective_rounds = nullptr);

}  // namespace mpidle::sync
