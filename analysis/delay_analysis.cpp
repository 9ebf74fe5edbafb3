#include "analysis/delay_analysis.hpp"

#include <algorithm>
#include <unordered_map>

#include "analysis/callsite_verdict.hpp"

namespace mpidle::analysis {
namespace {

using sync::RecordRef;

// One rank's calls (their first records) with what the analysis needs of each.
struct RankCalls {
  std::vector<std::uint64_t> first;           // call → its first record
  std::vector<std::uint64_t> call_of;         // record → its call
  std::vector<double> gap, processing, wait;  // per call, seconds: computation before it, ...
  std::vector<double> gap_sum, processing_sum, wait_sum;  // prefix sums, one longer
  // Per call: the calls of other ranks it synchronized with (rank, call).
  std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> links;
};

// Time by kind in an interval of one rank: from after call `from` (none: the
// rank's start) to call `to`, the computation before `to` included, `to` not; and
// the end of `from` itself after the interval's common start (the head: its
// processing first, then its waiting), which the totals include.
struct IntervalTimes {
  double computation = 0, communication = 0, waiting = 0;
  double head_communication = 0, head_waiting = 0;
};

class Delays {
 public:
  Delays(const model::Trace& trace, const sync::TraceMatching& matching)
      : m_trace(trace), m_matching(matching) {}

  DelayAnalysis run(std::vector<WaitEvent> events) {
    index_calls(events);
    link_calls();
    // Backward: a wait state hears of the waiting it propagated to before it
    // charges its own delays (every such wait ended later than it did).
    std::stable_sort(events.begin(), events.end(),
                     [](const WaitEvent& a, const WaitEvent& b) { return a.until > b.until; });
    for (const auto& e : events) charge(e);
    return finish();
  }

 private:
  const model::Trace& trace() const { return m_trace; }
  std::int64_t enter(std::uint32_t r, std::uint64_t record) const {
    return m_trace.ranks[r].synced[2 * record];
  }
  std::int64_t exit(std::uint32_t r, std::uint64_t record) const {
    return m_trace.ranks[r].synced[2 * record + 1];
  }

  void index_calls(const std::vector<WaitEvent>& events) {
    m_calls.resize(m_trace.ranks.size());
    m_propagated.resize(m_trace.ranks.size());
    for (std::uint32_t r = 0; r < m_trace.ranks.size(); ++r) {
      const auto& records = m_trace.ranks[r].records;
      RankCalls& c = m_calls[r];
      c.call_of.resize(records.size());
      for (std::uint64_t i = 0; i < records.size(); ++i) {
        if (records[i].extra == 0 || c.first.empty()) c.first.push_back(i);
        c.call_of[i] = c.first.size() - 1;
      }
      const std::size_t n = c.first.size();
      c.gap.assign(n, 0);
      c.processing.assign(n, 0);
      c.wait.assign(n, 0);
      c.links.resize(n);
      m_propagated[r].assign(n, 0);
    }
    for (const auto& e : events) {
      m_calls[e.at.rank].wait[m_calls[e.at.rank].call_of[e.at.record]] +=
          static_cast<double>(e.until - e.start) * 1e-9;
    }
    for (std::uint32_t r = 0; r < m_trace.ranks.size(); ++r) {
      RankCalls& c = m_calls[r];
      for (std::size_t k = 0; k < c.first.size(); ++k) {
        const std::uint64_t rec = c.first[k];
        if (k > 0) {
          c.gap[k] =
              std::max(0.0, static_cast<double>(enter(r, rec) - exit(r, c.first[k - 1])) * 1e-9);
        }
        const double duration = static_cast<double>(exit(r, rec) - enter(r, rec)) * 1e-9;
        c.processing[k] = std::max(0.0, duration - c.wait[k]);
      }
      auto prefix = [](const std::vector<double>& of, std::vector<double>& sum) {
        sum.assign(of.size() + 1, 0);
        for (std::size_t k = 0; k < of.size(); ++k) sum[k + 1] = sum[k] + of[k];
      };
      prefix(c.gap, c.gap_sum);
      prefix(c.processing, c.processing_sum);
      prefix(c.wait, c.wait_sum);
    }
  }

  // Which calls of two ranks synchronized: the ends of every message, and the
  // members of every collective instance.
  void link_calls() {
    const auto& matching = m_matching;
    auto link = [&](RecordRef a, RecordRef b) {
      if (a.rank == b.rank) return;
      m_calls[a.rank].links[m_calls[a.rank].call_of[a.record]].emplace_back(
          static_cast<std::uint32_t>(b.rank), m_calls[b.rank].call_of[b.record]);
    };
    for (const auto& m : matching.messages) {
      link(m.send, m.receive_call);
      link(m.receive_call, m.send);
    }
    for (const auto& c : matching.collectives) {
      // Every pair of members: an instance of P members links P² calls, so only
      // instances of up to 64 members link all pairs; larger ones link each member
      // to its neighbours in order, which keeps the interval's end and costs O(P).
      const std::size_t n = c.members.size();
      for (std::size_t i = 0; i < n; ++i) {
        if (n <= 64) {
          for (std::size_t j = 0; j < n; ++j)
            if (i != j) link(c.members[i].enter, c.members[j].enter);
        } else {
          if (i > 0) link(c.members[i].enter, c.members[i - 1].enter);
          if (i + 1 < n) link(c.members[i].enter, c.members[i + 1].enter);
        }
      }
    }
  }

  // The previous synchronization of rank r's call `call` with rank s before s's
  // call `until`: (r's call, s's call), or none (kNone) within kMaxSyncSearchCalls calls.
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  std::pair<std::uint64_t, std::uint64_t> previous_sync(std::uint32_t r, std::uint64_t call,
                                                        std::uint32_t s,
                                                        std::uint64_t until) const {
    const RankCalls& c = m_calls[r];
    const std::uint64_t stop = call > kMaxSyncSearchCalls ? call - kMaxSyncSearchCalls : 0;
    for (std::uint64_t k = call; k-- > stop;) {
      for (const auto& [rank, other] : c.links[k]) {
        if (rank == s && other < until) return {k, other};
      }
    }
    return {kNone, kNone};
  }

  // `start`: the interval's common start on both ranks, the earlier of the two
  // ends of the previous synchronization, so that the ranks' times in their
  // intervals differ by the waiting: a rank that left the previous synchronization
  // later spent that time in its call.
  IntervalTimes interval(std::uint32_t r, std::uint64_t from, std::uint64_t to,
                         std::int64_t start) const {
    const RankCalls& c = m_calls[r];
    const std::uint64_t first = from == kNone ? 0 : from + 1;  // first call inside
    IntervalTimes t;
    if (to < first) return t;
    t.computation = c.gap_sum[to + 1] - c.gap_sum[first];
    t.communication = c.processing_sum[to] - c.processing_sum[first];
    t.waiting = c.wait_sum[to] - c.wait_sum[first];
    if (from != kNone) {
      const double head =
          std::max<double>(0, static_cast<double>(exit(r, c.first[from]) - start) * 1e-9);
      t.head_communication = std::min(head, c.processing[from]);
      t.head_waiting = std::min(head - t.head_communication, c.wait[from]);
      t.communication += t.head_communication;
      t.waiting += t.head_waiting;
    }
    return t;
  }

  void charge(const WaitEvent& e) {
    const std::uint32_t r = e.at.rank, s = e.cause.rank;
    const RankCalls& rc = m_calls[r];
    const std::uint64_t waiting_call = rc.call_of[e.at.record];
    const double w = static_cast<double>(e.until - e.start) * 1e-9;
    // The waiting this wait state passes on: its own, and its part of what later
    // wait states propagated back to its call.
    const double call_wait = rc.wait[waiting_call];
    const double carried = call_wait > 0 ? w * m_propagated[r][waiting_call] / call_wait : 0.0;
    const double cost = w + carried;
    const model::TraceRecord& waiter = m_trace.ranks[r].records[e.at.record];
    WaitRootCauses& causes =
        m_tally.wait_state_at(static_cast<std::uint32_t>(waiter.callsite), waiter.function, w);
    if (r == s) {  // no partner to blame
      causes.unexplained_s += w;
      return;
    }
    const std::uint64_t late_call = m_calls[s].call_of[e.cause.record];
    const auto [mine, theirs] = previous_sync(r, waiting_call, s, late_call);
    const std::int64_t start =
        mine == kNone ? 0 : std::min(exit(r, rc.first[mine]), exit(s, m_calls[s].first[theirs]));
    const IntervalTimes on_s = interval(s, theirs, late_call, start);
    const IntervalTimes on_r = interval(r, mine, waiting_call, start);
    const ExcessShares to = excess_shares(on_s.computation, on_s.communication, on_s.waiting,
                                          on_r.computation, on_r.communication, on_r.waiting);
    if (!to.explained()) {
      causes.unexplained_s += w;
      return;
    }
    // Within each kind, the activities of S's interval by their time.
    const RankCalls& sc = m_calls[s];
    const auto& records = m_trace.ranks[s].records;
    const std::uint64_t first = theirs == kNone ? 0 : theirs + 1;
    const double to_computation = to.computation;
    const double to_communication = to.communication;
    const double to_waiting = to.waiting;
    // The head of S's previous synchronization call, then the calls inside.
    if (theirs != kNone) {
      share_communication(s, theirs, on_s.head_communication, on_s, to_communication, w, cost,
                          causes);
      share_waiting(s, theirs, on_s.head_waiting, on_s, to_waiting, w, cost, causes);
    }
    for (std::uint64_t k = first; k <= late_call; ++k) {
      const model::TraceRecord& rec = records[sc.first[k]];
      if (on_s.computation > 0 && sc.gap[k] > 0) {
        const double part = to_computation * sc.gap[k] / on_s.computation;
        add_delay(DelayKind::computation, rec, s, part * w, part * cost, causes);
        causes.computation_s += part * w;
      }
      if (k == late_call) break;  // the late call itself is not in the interval
      share_communication(s, k, sc.processing[k], on_s, to_communication, w, cost, causes);
      share_waiting(s, k, sc.wait[k], on_s, to_waiting, w, cost, causes);
    }
  }

  // `seconds` of communication in S's call k: its part of the communication share.
  void share_communication(std::uint32_t s, std::uint64_t k, double seconds,
                           const IntervalTimes& on_s, double share, double w, double cost,
                           WaitRootCauses& causes) {
    if (on_s.communication <= 0 || seconds <= 0) return;
    const model::TraceRecord& rec = m_trace.ranks[s].records[m_calls[s].first[k]];
    const double part = share * seconds / on_s.communication;
    const bool bandwidth = static_cast<double>(rec.bytes) > kLatencyBoundBytes;
    add_delay(bandwidth ? DelayKind::bandwidth : DelayKind::latency, rec, s, part * w, part * cost,
              causes);
    (bandwidth ? causes.bandwidth_s : causes.latency_s) += part * w;
  }

  // `seconds` of waiting in S's call k: propagated, and passed back to that call.
  void share_waiting(std::uint32_t s, std::uint64_t k, double seconds, const IntervalTimes& on_s,
                     double share, double w, double cost, WaitRootCauses& causes) {
    if (on_s.waiting <= 0 || seconds <= 0) return;
    const model::TraceRecord& rec = m_trace.ranks[s].records[m_calls[s].first[k]];
    const double part = share * seconds / on_s.waiting;
    causes.propagated_s += part * w;
    causes.propagated_from[{static_cast<std::uint32_t>(rec.callsite), rec.function}] += part * w;
    m_propagated[s][k] += part * cost;
  }

  void add_delay(DelayKind kind, const model::TraceRecord& rec, std::uint32_t rank,
                 double short_term, double long_term, WaitRootCauses& causes) {
    const std::size_t delay = m_tally.charge_short_term(
        causes, kind, static_cast<std::uint32_t>(rec.callsite), rec.function, rank, short_term);
    m_tally.charge_long_term(delay, rank, long_term);
  }

  DelayAnalysis finish() {
    DelayAnalysis out = m_tally.take();
    sort_delays(out);
    return out;
  }

  const model::Trace& m_trace;
  const sync::TraceMatching& m_matching;
  std::vector<RankCalls> m_calls;
  std::vector<std::vector<double>> m_propagated;  // per rank and call: waiting passed back
  DelayTally m_tally;
};

}  // namespace

ExcessShares excess_shares(double partner_computation, double partner_communication,
                           double partner_waiting, double own_computation, double own_communication,
                           double own_waiting) {
  const double computation = std::max(0.0, partner_computation - own_computation);
  const double communication = std::max(0.0, partner_communication - own_communication);
  const double waiting = std::max(0.0, partner_waiting - own_waiting);
  const double excess = computation + communication + waiting;
  if (excess <= 0) return {};
  return {computation / excess, communication / excess, waiting / excess};
}

WaitRootCauses& operator+=(WaitRootCauses& into, const WaitRootCauses& from) {
  into.wait_s += from.wait_s;
  into.computation_s += from.computation_s;
  into.latency_s += from.latency_s;
  into.bandwidth_s += from.bandwidth_s;
  into.propagated_s += from.propagated_s;
  into.unexplained_s += from.unexplained_s;
  into.wait_states += from.wait_states;
  for (const auto& [k, v] : from.propagated_from) into.propagated_from[k] += v;
  for (const auto& [k, v] : from.delay_places) into.delay_places[k] += v;
  for (const auto& [k, v] : from.delay_ranks) into.delay_ranks[k] += v;
  return into;
}

DelayCosts& operator+=(DelayCosts& into, const DelayCosts& from) {
  into.short_term_s += from.short_term_s;
  into.long_term_s += from.long_term_s;
  for (const auto& [k, v] : from.long_term_by_rank) into.long_term_by_rank[k] += v;
  return into;
}

void sort_delays(DelayAnalysis& d) {
  std::stable_sort(d.delays.begin(), d.delays.end(), [](const DelayCosts& a, const DelayCosts& b) {
    return a.long_term_s > b.long_term_s;
  });
}

DelayTally::DelayTally(DelayAnalysis start) : m_sum(std::move(start)) {
  for (std::size_t i = 0; i < m_sum.waits.size(); ++i) {
    m_wait_index[{m_sum.waits[i].callsite, m_sum.waits[i].function}] = i;
  }
  for (std::size_t i = 0; i < m_sum.delays.size(); ++i) {
    const DelayCosts& c = m_sum.delays[i];
    m_delay_index[{static_cast<std::uint8_t>(c.kind), c.callsite, c.function}] = i;
  }
}

WaitRootCauses& DelayTally::causes_at(std::uint32_t callsite, std::uint32_t function) {
  auto [it, added] = m_wait_index.try_emplace({callsite, function}, m_sum.waits.size());
  if (added) {
    WaitRootCauses w;
    w.callsite = callsite;
    w.function = function;
    m_sum.waits.push_back(std::move(w));
  }
  return m_sum.waits[it->second];
}

WaitRootCauses& DelayTally::wait_state_at(std::uint32_t callsite, std::uint32_t function,
                                          double wait_s) {
  WaitRootCauses& causes = causes_at(callsite, function);
  causes.wait_s += wait_s;
  ++causes.wait_states;
  m_sum.wait_s += wait_s;
  return causes;
}

std::size_t DelayTally::delay_at(DelayKind kind, std::uint32_t callsite, std::uint32_t function) {
  auto [it, added] = m_delay_index.try_emplace(
      {static_cast<std::uint8_t>(kind), callsite, function}, m_sum.delays.size());
  if (added) {
    DelayCosts d;
    d.kind = kind;
    d.callsite = callsite;
    d.function = function;
    m_sum.delays.push_back(std::move(d));
  }
  return it->second;
}

std::size_t DelayTally::charge_short_term(WaitRootCauses& causes, DelayKind kind,
                                          std::uint32_t callsite, std::uint32_t function,
                                          std::uint32_t position, double seconds) {
  causes.delay_places[{static_cast<std::uint8_t>(kind), callsite, function}] += seconds;
  causes.delay_ranks[position] += seconds;
  const std::size_t index = delay_at(kind, callsite, function);
  m_sum.delays[index].short_term_s += seconds;
  m_sum.short_term_s += seconds;
  return index;
}

void DelayTally::charge_long_term(std::size_t delay, std::uint32_t position, double seconds) {
  DelayCosts& d = m_sum.delays[delay];
  d.long_term_s += seconds;
  d.long_term_by_rank[position] += seconds;
  m_sum.long_term_s += seconds;
}

const char* delay_kind_key(DelayKind k) {
  switch (k) {
    case DelayKind::computation:
      return "computation";
    case DelayKind::latency:
      return "latency";
    case DelayKind::bandwidth:
      return "bandwidth";
  }
  return "?";
}

DelayAnalysis analyze_delays(const model::Trace& trace, const sync::TraceMatching& matching,
                             std::vector<WaitEvent> events) {
  return Delays(trace, matching).run(std::move(events));
}

DelayAnalysis analyze_delays(const model::Trace& trace, const sync::TraceMatching& matching) {
  std::vector<WaitEvent> events;
  analyze_wait_states(trace, matching, {}, [&](const WaitEvent& e) { events.push_back(e); });
  return analyze_delays(trace, matching, std::move(events));
}

}  // namespace mpidle::analysis
