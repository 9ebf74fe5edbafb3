#pragma once
// Why it waited, at profile cost: the delay analysis (delay_analysis.hpp) on the
// trace windows' wait states, with no rank holding another's records
// (docs/analysis-format.md, "Why it waited"; profiler/finalize/window_calibration).
//
// A wait state on rank R, ended by rank S, is charged to the excess time S spent,
// beyond R, from R's previous synchronization with S in the same window (a message
// between the two, or a collective both were in) to the point where they met: for
// R up to its waiting call, for S up to the entry that ended the waiting. Both
// sides are measured from the same instant, the end of R's previous
// synchronization (the first call of R's window where there is none), so the two
// totals differ by the waiting. By kind, as in the whole trace's analysis:
// computation, communication (latency up to 16 KiB a call, bandwidth above) and
// waiting, whose share is propagated waiting. In a call, its waiting comes first,
// then its processing.
//
// Where S has no records of the window before that instant, both count from S's
// first call in it: S's time outside its windows is not known.
//
// Three steps, two exchanges (the finalize carries the parcels):
//  1. queries: R asks each S for its time by kind in each interval it needs.
//  2. answers: S reads its own timeline (RankTimeline) and answers every query.
//  3. apply: R splits each wait state's waiting and sums the splits per callsite.
// Only the short-term split: what each callsite's waiting was caused by. Propagated
// waiting is not passed further back (the whole trace's analysis does that), and
// the callsite it came from is not named. Pure C++, no MPI.

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "analysis/delay_analysis.hpp"
#include "analysis/rank_waits.hpp"
#include "model/calibration.hpp"
#include "model/window_schedule.hpp"
#include "sync/parcels.hpp"

namespace mpidle::analysis {

// Time of one rank by kind in an interval, seconds.
struct IntervalKinds {
  double computation = 0, latency = 0, bandwidth = 0, waiting = 0;
  double communication() const { return latency + bandwidth; }
};

// excess_shares (delay_analysis.hpp) of the partner's interval `partner` over the
// waiter's `own`.
ExcessShares excess_of(const IntervalKinds& partner, const IntervalKinds& own);

// Where an interval's time was (the whole trace's replay asks for it): computation
// before the MPI call at (callsite, function), or communication in it; and the
// calls that waited inside it. Fixed-size, trivially copyable: they travel as bytes.
struct PlaceTime {
  std::uint32_t kind = 0;  // DelayKind
  std::uint32_t callsite = 0, function = 0, unused = 0;
  double seconds = 0;
};
struct WaitingTime {
  std::uint64_t record = 0;  // the call's first record on its rank
  std::uint32_t callsite = 0, function = 0;
  double seconds = 0;
};
// An answer names at most this many places and waiting calls, the largest: the
// rest count in its totals by kind only.
inline constexpr std::size_t kMaxAnswerPlaces = 16;
struct IntervalDetail {
  std::vector<PlaceTime> places;
  std::vector<WaitingTime> waits;
};

// One rank's synchronized calls, to answer what it did between two instants.
class RankTimeline {
 public:
  // `rank`: synchronized records; `call_waits`: each record's wait (rank_wait_states);
  // `openings`: where its windows opened, on the clock of its records' enter_ns
  // (none: one window).
  RankTimeline(const model::RankTrace& rank, const CallWaits& call_waits,
               const model::WindowOpenings& openings = {});
  // Its time in [from, to): outside its calls computation, in a call its waiting
  // first, then its processing (latency or bandwidth by the call's bytes).
  IntervalKinds between(std::int64_t from, std::int64_t to) const;
  // The same interval by place, the largest kMaxAnswerPlaces of each list. The
  // computation after its last call is before the call that follows.
  IntervalDetail detail(std::int64_t from, std::int64_t to) const;
  // Where its records of the window holding instant `t` begin (synchronized): what
  // it did before is not known here (`t` itself where it has no call at or before).
  std::int64_t window_start(std::int64_t t) const;

 private:
  struct Call {
    std::int64_t enter = 0, exit = 0, wait = 0;
    std::int64_t window_start = 0;  // the enter of its window's first call
    std::uint64_t record = 0;       // its first record
    std::uint32_t callsite = 0, function = 0;
    bool bandwidth = false;
  };
  IntervalKinds clipped(const Call& c, std::int64_t from, std::int64_t to) const;
  std::vector<Call> m_calls;
  // Prefix sums over the calls, one longer: the gap before each call (none before
  // the first), its waiting, its latency and bandwidth processing (ns).
  std::vector<std::int64_t> m_gap, m_wait, m_latency, m_bandwidth;
};

// Step 2 on S: one answer per rank in `queries`, in their order. Each interval
// starts no earlier than S's records of that window: both sides then count from
// there (the asker learns where). `detailed`: each answer also says where
// (RankTimeline::detail), as read_delay_answers returns it.
sync::Parcels answer_delay_queries(const RankTimeline& timeline, const sync::Parcels& queries,
                                   bool detailed = false);

// One answer as read back: where S counted from, its time by kind, and, detailed,
// where.
struct DelayReply {
  std::int64_t from = 0;
  IntervalKinds kinds;
  IntervalDetail detail;
};
// Throws model::TraceError on bytes it cannot read.
std::vector<DelayReply> read_delay_answers(std::span<const std::byte> bytes, bool detailed);

// Steps 1 and 3 on R.
class WindowDelays {
 public:
  // `rank`: R's synchronized window records, its functions as `tables`;
  // `world_rank`, `world_size`: R's place; `openings`: where its windows opened, on
  // the clock of its records' enter_ns; `events`: its wait states.
  WindowDelays(const model::Trace& tables, const model::RankTrace& rank, std::int32_t world_rank,
               std::int32_t world_size, model::WindowOpenings openings,
               std::vector<RankWaitEvent> events);
  // Step 1: per S, the intervals R needs of it.
  sync::Parcels queries();
  // Step 3: `answers` by S (as answer_delay_queries made them); R's timeline.
  // Throws model::TraceError on bytes it cannot read.
  void apply(const sync::Parcels& answers, const RankTimeline& own);
  // R's wait states by root cause, per callsite (function, site identity).
  const std::map<model::CauseSiteKey, model::WindowCauses>& causes() const { return m_causes; }

  // After queries(): which of R's wait states each query to S stands for, in order.
  struct Asked {
    std::size_t event = 0;
    std::int64_t from = 0;  // the interval's common start
  };
  const std::map<std::int32_t, std::vector<Asked>>& asked() const { return m_asked; }
  const std::vector<RankWaitEvent>& events() const { return m_events; }
  // The wait state `event` was ended by `cause_rank` (found after construction).
  void set_cause(std::size_t event, std::int32_t cause_rank) {
    m_events[event].cause_rank = cause_rank;
  }
  // The first record of the call that holds `record`.
  std::uint64_t call_of(std::uint64_t record) const { return m_call_of[record]; }

 private:
  std::int64_t start_of(const RankWaitEvent& e) const;
  bool synchronizes(std::uint64_t call_first, const model::TraceRecord& waiting,
                    std::int32_t with) const;
  model::WindowCauses& causes_at(const model::TraceRecord& rec);

  const model::Trace& m_tables;
  const model::RankTrace& m_rank;
  std::int32_t m_world_rank, m_world_size;
  model::WindowOpenings m_openings;
  std::vector<RankWaitEvent> m_events;
  std::vector<std::uint64_t> m_call_of;                // record → its call's first record
  std::map<std::int32_t, std::vector<Asked>> m_asked;  // by S, in query order
  std::map<model::CauseSiteKey, model::WindowCauses> m_causes;
  model::SiteIdentities m_sites;  // the callsites' identities, each made once
};

}  // namespace mpidle::analysis
