#include "analysis/window_delays.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <span>
#include <tuple>
#include <type_traits>

#include "analysis/callsite_verdict.hpp"
#include "analysis/delay_analysis.hpp"
#include "model/byte_stream.hpp"
#include "model/profile_tables.hpp"

namespace mpidle::analysis {
namespace {

std::int64_t overlap_ns(std::int64_t a, std::int64_t b, std::int64_t from, std::int64_t to) {
  return std::max<std::int64_t>(0, std::min(b, to) - std::max(a, from));
}

double ns_to_s(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

// One query: an interval of S's timeline.
struct DelayQuery {
  std::int64_t from = 0, to = 0;
};
static_assert(std::is_trivially_copyable_v<DelayQuery>);

// Its answer: where S counted from, and its time by kind from there.
struct DelayAnswer {
  std::int64_t from = 0;
  double computation = 0, latency = 0, bandwidth = 0, waiting = 0;
};
static_assert(std::is_trivially_copyable_v<DelayAnswer>);

}  // namespace

RankTimeline::RankTimeline(const model::RankTrace& rank, const CallWaits& call_waits,
                           const model::WindowOpenings& openings) {
  const auto& records = rank.records;
  std::uint32_t window = 0;
  for (std::uint64_t i = 0; i < records.size(); ++i) {
    if (records[i].extra != 0 && !m_calls.empty()) {
      // A further record of the call: its wait counts for the call.
      if (i < call_waits.size()) m_calls.back().wait += call_waits[i];
      continue;
    }
    Call c;
    c.enter = rank.synced[2 * i];
    c.exit = std::max(c.enter, rank.synced[2 * i + 1]);
    c.wait = i < call_waits.size() ? call_waits[i] : 0;
    c.bandwidth = static_cast<double>(records[i].bytes) > kLatencyBoundBytes;
    c.record = i;
    c.callsite = static_cast<std::uint32_t>(records[i].callsite);
    c.function = records[i].function;
    const std::uint32_t w = openings.window_at(records[i].enter_ns);
    c.window_start = m_calls.empty() || w != window ? c.enter : m_calls.back().window_start;
    window = w;
    m_calls.push_back(c);
  }
  const std::size_t n = m_calls.size();
  for (auto* sum : {&m_gap, &m_wait, &m_latency, &m_bandwidth}) sum->assign(n + 1, 0);
  for (std::size_t k = 0; k < n; ++k) {
    Call& c = m_calls[k];
    c.wait = std::clamp<std::int64_t>(c.wait, 0, c.exit - c.enter);
    const std::int64_t processing = c.exit - c.enter - c.wait;
    m_gap[k + 1] =
        m_gap[k] + (k > 0 ? std::max<std::int64_t>(0, c.enter - m_calls[k - 1].exit) : 0);
    m_wait[k + 1] = m_wait[k] + c.wait;
    m_latency[k + 1] = m_latency[k] + (c.bandwidth ? 0 : processing);
    m_bandwidth[k + 1] = m_bandwidth[k] + (c.bandwidth ? processing : 0);
  }
}

IntervalKinds RankTimeline::clipped(const Call& c, std::int64_t from, std::int64_t to) const {
  IntervalKinds k;
  k.waiting = ns_to_s(overlap_ns(c.enter, c.enter + c.wait, from, to));
  const double processing = ns_to_s(overlap_ns(c.enter + c.wait, c.exit, from, to));
  (c.bandwidth ? k.bandwidth : k.latency) = processing;
  return k;
}

std::int64_t RankTimeline::window_start(std::int64_t t) const {
  const auto after = std::partition_point(m_calls.begin(), m_calls.end(),
                                          [&](const Call& c) { return c.enter <= t; });
  return after == m_calls.begin() ? t : std::prev(after)->window_start;
}

IntervalKinds RankTimeline::between(std::int64_t from, std::int64_t to) const {
  IntervalKinds k;
  if (to <= from) return k;
  // The calls that reach into [from, to): [lo, hi).
  const auto lo =
      static_cast<std::size_t>(std::partition_point(m_calls.begin(), m_calls.end(),
                                                    [&](const Call& c) { return c.exit <= from; }) -
                               m_calls.begin());
  const auto hi =
      static_cast<std::size_t>(std::partition_point(m_calls.begin(), m_calls.end(),
                                                    [&](const Call& c) { return c.enter < to; }) -
                               m_calls.begin());
  if (lo >= hi) {
    k.computation = ns_to_s(to - from);
    return k;
  }
  auto add = [&](const IntervalKinds& x) {
    k.waiting += x.waiting;
    k.latency += x.latency;
    k.bandwidth += x.bandwidth;
  };
  // Computation: before the first call, between the calls, after the last.
  k.computation =
      ns_to_s(std::max<std::int64_t>(0, std::min(m_calls[lo].enter, to) - from) +
              (m_gap[hi] - m_gap[lo + 1]) + std::max<std::int64_t>(0, to - m_calls[hi - 1].exit));
  add(clipped(m_calls[lo], from, to));
  if (hi - 1 > lo) {
    add(clipped(m_calls[hi - 1], from, to));
    // The calls wholly inside.
    k.waiting += ns_to_s(m_wait[hi - 1] - m_wait[lo + 1]);
    k.latency += ns_to_s(m_latency[hi - 1] - m_latency[lo + 1]);
    k.bandwidth += ns_to_s(m_bandwidth[hi - 1] - m_bandwidth[lo + 1]);
  }
  return k;
}

ExcessShares excess_of(const IntervalKinds& partner, const IntervalKinds& own) {
  return excess_shares(partner.computation, partner.communication(), partner.waiting,
                       own.computation, own.communication(), own.waiting);
}

IntervalDetail RankTimeline::detail(std::int64_t from, std::int64_t to) const {
  IntervalDetail out;
  if (to <= from || m_calls.empty()) return out;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::int64_t> places;
  auto add = [&](DelayKind kind, const Call& c, std::int64_t ns) {
    if (ns > 0) places[{static_cast<std::uint32_t>(kind), c.callsite, c.function}] += ns;
  };
  const auto lo =
      static_cast<std::size_t>(std::partition_point(m_calls.begin(), m_calls.end(),
                                                    [&](const Call& c) { return c.exit <= from; }) -
                               m_calls.begin());
  std::int64_t computed_to = from;  // computation is counted up to here
  for (std::size_t k = lo; k < m_calls.size() && m_calls[k].enter < to; ++k) {
    const Call& c = m_calls[k];
    add(DelayKind::computation, c, overlap_ns(computed_to, c.enter, from, to));
    const std::int64_t waited = overlap_ns(c.enter, c.enter + c.wait, from, to);
    if (waited > 0) out.waits.push_back({c.record, c.callsite, c.function, ns_to_s(waited)});
    add(c.bandwidth ? DelayKind::bandwidth : DelayKind::latency, c,
        overlap_ns(c.enter + c.wait, c.exit, from, to));
    computed_to = std::max(computed_to, c.exit);
  }
  if (computed_to < to) {
    // Before the call that follows (the one that ends the interval), else the last.
    const auto next = std::partition_point(m_calls.begin(), m_calls.end(),
                                           [&](const Call& c) { return c.enter < to; });
    add(DelayKind::computation, next != m_calls.end() ? *next : *std::prev(next), to - computed_to);
  }
  for (const auto& [key, ns] : places) {
    const auto& [kind, callsite, function] = key;
    out.places.push_back({kind, callsite, function, 0, ns_to_s(ns)});
  }
  auto keep_largest = [](auto& rows) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
    if (rows.size() > kMaxAnswerPlaces) rows.resize(kMaxAnswerPlaces);
  };
  keep_largest(out.places);
  keep_largest(out.waits);
  return out;
}

std::vector<DelayReply> read_delay_answers(std::span<const std::byte> bytes, bool detailed) {
  model::ByteReader r(bytes);
  std::vector<DelayAnswer> told;
  if (!r.get_array(told)) throw model::TraceError("unreadable root-cause answer");
  std::vector<DelayReply> out(told.size());
  for (std::size_t q = 0; q < told.size(); ++q) {
    const DelayAnswer& a = told[q];
    out[q].from = a.from;
    out[q].kinds = IntervalKinds{a.computation, a.latency, a.bandwidth, a.waiting};
    if (detailed && !(r.get_array(out[q].detail.places) && r.get_array(out[q].detail.waits))) {
      throw model::TraceError("unreadable root-cause answer");
    }
  }
  if (!r.at_end()) throw model::TraceError("unreadable root-cause answer");
  return out;
}

sync::Parcels answer_delay_queries(const RankTimeline& timeline, const sync::Parcels& queries,
                                   bool detailed) {
  sync::Parcels out;
  for (const auto& [source, bytes] : queries) {
    model::ByteReader r(bytes);
    std::vector<DelayQuery> asked;
    model::ByteWriter w;
    if (r.get_array(asked) && r.at_end()) {
      std::vector<DelayAnswer> answers;
      answers.reserve(asked.size());
      for (const DelayQuery& q : asked) {
        const std::int64_t from = std::max(q.from, timeline.window_start(q.to));
        const IntervalKinds k = timeline.between(from, q.to);
        answers.push_back({from, k.computation, k.latency, k.bandwidth, k.waiting});
      }
      w.put_array(std::span<const DelayAnswer>(answers));
      for (std::size_t q = 0; detailed && q < asked.size(); ++q) {
        const IntervalDetail d = timeline.detail(answers[q].from, asked[q].to);
        w.put_array(std::span<const PlaceTime>(d.places));
        w.put_array(std::span<const WaitingTime>(d.waits));
      }
    }
    // Unreadable: an empty answer, which the asker takes for none.
    out.emplace_back(source, w.take());
  }
  return out;
}

WindowDelays::WindowDelays(const model::Trace& tables, const model::RankTrace& rank,
                           std::int32_t world_rank, std::int32_t world_size,
                           model::WindowOpenings openings, std::vector<RankWaitEvent> events)
    : m_tables(tables),
      m_rank(rank),
      m_world_rank(world_rank),
      m_world_size(world_size),
      m_openings(std::move(openings)),
      m_events(std::move(events)),
      m_sites(tables.callsites) {
  m_call_of.resize(rank.records.size());
  std::uint64_t first = 0;
  for (std::uint64_t i = 0; i < rank.records.size(); ++i) {
    if (rank.records[i].extra == 0) first = i;
    m_call_of[i] = first;
  }
}

bool WindowDelays::synchronizes(std::uint64_t call_first, const model::TraceRecord& waiting,
                                std::int32_t with) const {
  for (std::uint64_t i = call_first; i < m_rank.records.size(); ++i) {
    if (i > call_first && m_rank.records[i].extra == 0) break;
    const model::TraceRecord& rec = m_rank.records[i];
    switch (rec.role) {
      case model::TraceRole::send:
      case model::TraceRole::recv:
      case model::TraceRole::isend:
      case model::TraceRole::completion:
        if (rec.peer == with) return true;
        break;
      case model::TraceRole::collective:
        // A collective both were in: the waiting one's communicator, or one of
        // every rank.
        if ((waiting.role == model::TraceRole::collective && rec.comm == waiting.comm) ||
            model::comm_size_of(rec.tag) == m_world_size) {
          return true;
        }
        break;
      default:
        break;
    }
  }
  return false;
}

// The end of R's previous synchronization with the event's cause in the waiting
// call's window, or the enter of R's first call in that window.
std::int64_t WindowDelays::start_of(const RankWaitEvent& e) const {
  const auto& records = m_rank.records;
  const std::uint64_t call = m_call_of[e.record];
  const std::uint32_t window = m_openings.window_at(records[call].enter_ns);
  std::int64_t start = m_rank.synced[2 * call];
  std::uint64_t searched = 0;
  for (std::uint64_t i = call; i-- > 0 && searched < kMaxSyncSearchCalls;) {
    if (records[i].extra != 0) continue;
    if (m_openings.window_at(records[i].enter_ns) != window) break;
    ++searched;
    start = m_rank.synced[2 * i];
    if (synchronizes(i, records[call], e.cause_rank)) {
      // Its end: the exit of the call's last record.
      std::uint64_t last = i;
      while (last + 1 < records.size() && records[last + 1].extra != 0) ++last;
      return std::max(m_rank.synced[2 * i + 1], m_rank.synced[2 * last + 1]);
    }
  }
  return start;
}

sync::Parcels WindowDelays::queries() {
  std::map<std::int32_t, std::vector<DelayQuery>> by_cause;
  for (std::size_t i = 0; i < m_events.size(); ++i) {
    const RankWaitEvent& e = m_events[i];
    if (e.cause_rank < 0 || e.cause_rank == m_world_rank || e.cause_rank >= m_world_size) continue;
    const std::int64_t from = start_of(e);
    by_cause[e.cause_rank].push_back({from, e.until});
    m_asked[e.cause_rank].push_back({i, from});
  }
  sync::Parcels out;
  for (const auto& [cause, asked] : by_cause) {
    model::ByteWriter w;
    w.put_array(std::span<const DelayQuery>(asked));
    out.emplace_back(cause, w.take());
  }
  return out;
}

model::WindowCauses& WindowDelays::causes_at(const model::TraceRecord& rec) {
  static const std::string unknown = "?";
  const std::string& function =
      rec.function < m_tables.functions.size() ? m_tables.functions[rec.function] : unknown;
  const std::string* site = m_sites.of(rec.callsite);
  return m_causes[{function, site ? *site : std::string()}];
}

void WindowDelays::apply(const sync::Parcels& answers, const RankTimeline& own) {
  std::vector<std::optional<IntervalKinds>> on_cause(m_events.size());
  std::vector<std::int64_t> from(m_events.size(), 0);  // where both sides count from
  for (const auto& [cause, bytes] : answers) {
    auto asked = m_asked.find(cause);
    if (asked == m_asked.end() || bytes.empty()) continue;
    const auto told = read_delay_answers(bytes, false);
    if (told.size() != asked->second.size()) {
      throw model::TraceError("unreadable root-cause answer from rank " + std::to_string(cause));
    }
    for (std::size_t q = 0; q < told.size(); ++q) {
      const std::size_t event = asked->second[q].event;
      on_cause[event] = told[q].kinds;
      from[event] = std::max(told[q].from, asked->second[q].from);
    }
  }
  for (std::size_t i = 0; i < m_events.size(); ++i) {
    const RankWaitEvent& e = m_events[i];
    const model::TraceRecord& waiter = m_rank.records[m_call_of[e.record]];
    model::WindowCauses& c = causes_at(waiter);
    const double w = ns_to_s(e.until - e.start);
    c.wait_s += w;
    ++c.wait_states;
    if (!on_cause[i]) {
      c.unexplained_s += w;
      continue;
    }
    const IntervalKinds& s = *on_cause[i];
    const IntervalKinds r = own.between(from[i], m_rank.synced[2 * m_call_of[e.record]]);
    const ExcessShares to = excess_of(s, r);
    if (!to.explained()) {
      c.unexplained_s += w;
      continue;
    }
    c.computation_s += w * to.computation;
    if (s.communication() > 0) {
      c.latency_s += w * to.communication * s.latency / s.communication();
      c.bandwidth_s += w * to.communication * s.bandwidth / s.communication();
    }
    c.propagated_s += w * to.waiting;
  }
}

}  // namespace mpidle::analysis
