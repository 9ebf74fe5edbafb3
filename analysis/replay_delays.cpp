#include "analysis/replay_delays.hpp"

#include <algorithm>
#include <type_traits>

#include "model/byte_stream.hpp"

namespace mpidle::analysis {
namespace {

double event_seconds(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

// A hop as it travels: the call that waited, and the seconds passed back to it.
struct HopBytes {
  std::int32_t rank = 0, unused = 0;
  std::uint64_t record = 0;
  double seconds = 0;
};
static_assert(std::is_trivially_copyable_v<HopBytes>);

// A process' parcel of several ranks' parts: (asker, cause, bytes) entries.
struct ParcelEntry {
  std::int32_t asker = 0, cause = 0;
  std::vector<std::byte> bytes;
};

std::vector<std::byte> encode_entries(const std::vector<ParcelEntry>& entries) {
  model::ByteWriter w;
  w.put<std::uint64_t>(entries.size());
  for (const ParcelEntry& e : entries) {
    w.put(e.asker);
    w.put(e.cause);
    w.put_array(std::span<const std::byte>(e.bytes));
  }
  return w.take();
}

std::vector<ParcelEntry> decode_entries(std::span<const std::byte> bytes) {
  model::ByteReader r(bytes);
  std::uint64_t n = 0;
  if (!r.get(n) || !r.can_hold(n, 16)) throw model::TraceError("unreadable root-cause parcel");
  std::vector<ParcelEntry> out(n);
  for (ParcelEntry& e : out) {
    if (!r.get(e.asker) || !r.get(e.cause) || !r.get_array(e.bytes)) {
      throw model::TraceError("unreadable root-cause parcel");
    }
  }
  if (!r.at_end()) throw model::TraceError("unreadable root-cause parcel");
  return out;
}

}  // namespace

ReplayDelays::ReplayDelays(const model::Trace& tables, std::vector<ReplayRank> ranks,
                           std::function<int(std::int32_t)> process_of,
                           std::function<std::int64_t(std::int32_t)> position_of)
    : m_process_of(std::move(process_of)), m_position_of(std::move(position_of)) {
  const auto world = static_cast<std::int32_t>(tables.ranks.size());
  for (auto& r : ranks) {
    const model::RankTrace& rank = *r.rank;
    RankTimeline timeline(rank, r.call_waits);
    WindowDelays windows(tables, rank, rank.rank, world, {}, std::move(r.events));
    auto o = std::unique_ptr<Owned>(
        new Owned{std::move(r), std::move(timeline), std::move(windows), {}, {}});
    const auto& events = o->windows.events();
    o->splits.resize(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
      o->events_at[o->windows.call_of(events[i].record)].push_back(i);
    }
    m_owned_by_rank[rank.rank] = m_owned.size();
    m_owned.push_back(std::move(o));
  }
}

namespace {

struct EnterBytes {  // a member's entry into a collective instance
  std::uint32_t comm = 0;
  std::int32_t rank = 0;
  std::uint64_t instance = 0;
  std::int64_t enter = 0;
};
struct AskBytes {  // who entered that instance at `until`?
  std::uint32_t comm = 0, owned = 0;
  std::uint64_t instance = 0, event = 0;
  std::int64_t until = 0;
};
struct CauseBytes {  // the answer
  std::uint32_t owned = 0;
  std::int32_t rank = -1;
  std::uint64_t event = 0;
};
static_assert(std::is_trivially_copyable_v<EnterBytes> && std::is_trivially_copyable_v<AskBytes> &&
              std::is_trivially_copyable_v<CauseBytes>);

int broker_of(std::uint32_t comm, std::uint64_t instance, int processes) {
  const std::uint64_t h = (instance * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t{comm} << 1);
  return static_cast<int>((h ^ (h >> 29)) % static_cast<std::uint64_t>(std::max(1, processes)));
}

}  // namespace

sync::Parcels ReplayDelays::cause_requests(int processes) {
  std::map<int, std::pair<std::vector<EnterBytes>, std::vector<AskBytes>>> by_broker;
  for (std::uint32_t k = 0; k < m_owned.size(); ++k) {
    Owned& o = *m_owned[k];
    const sync::RankPartners* p = o.data.partners;
    if (!p) continue;
    const model::RankTrace& rank = *o.data.rank;
    std::unordered_map<std::uint64_t, std::size_t> item_of;  // the entry's call → item
    for (std::size_t i = 0; i < p->items.collectives.size(); ++i) {
      const auto& c = p->items.collectives[i];
      if (!c.member.has_enter || i >= p->complete.size() || p->complete[i] == 0) continue;
      const std::uint64_t call = o.windows.call_of(c.member.enter.record);
      item_of[call] = i;
      by_broker[broker_of(c.comm, c.instance, processes)].first.push_back(
          {c.comm, rank.rank, c.instance, rank.synced[2 * c.member.enter.record]});
    }
    for (std::size_t e = 0; e < o.windows.events().size(); ++e) {
      const RankWaitEvent& w = o.windows.events()[e];
      if (w.cause_rank >= 0) continue;
      auto item = item_of.find(o.windows.call_of(w.record));
      if (item == item_of.end()) continue;
      const auto& c = p->items.collectives[item->second];
      by_broker[broker_of(c.comm, c.instance, processes)].second.push_back(
          {c.comm, k, c.instance, e, w.until});
    }
  }
  sync::Parcels out;
  for (const auto& [broker, parts] : by_broker) {
    model::ByteWriter w;
    w.put_array(std::span<const EnterBytes>(parts.first));
    w.put_array(std::span<const AskBytes>(parts.second));
    out.emplace_back(broker, w.take());
  }
  return out;
}

sync::Parcels ReplayDelays::cause_replies(const sync::Parcels& requests) const {
  // Every entry first: the questions of one parcel may be about another's members.
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::map<std::int64_t, std::int32_t>> entered;
  std::vector<std::vector<AskBytes>> asks(requests.size());
  for (std::size_t k = 0; k < requests.size(); ++k) {
    model::ByteReader r(requests[k].second);
    std::vector<EnterBytes> enters;
    if (!r.get_array(enters) || !r.get_array(asks[k]) || !r.at_end()) {
      asks[k].clear();
      continue;
    }
    for (const EnterBytes& e : enters) {
      auto [it, added] = entered[{e.comm, e.instance}].try_emplace(e.enter, e.rank);
      if (!added) it->second = std::min(it->second, e.rank);
    }
  }
  sync::Parcels out;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    std::vector<CauseBytes> causes;
    for (const AskBytes& a : asks[k]) {
      std::int32_t rank = -1;
      auto instance = entered.find({a.comm, a.instance});
      if (instance != entered.end()) {
        auto by = instance->second.find(a.until);
        if (by != instance->second.end()) rank = by->second;
      }
      causes.push_back({a.owned, rank, a.event});
    }
    model::ByteWriter w;
    w.put_array(std::span<const CauseBytes>(causes));
    out.emplace_back(requests[k].first, w.take());
  }
  return out;
}

void ReplayDelays::apply_causes(const sync::Parcels& replies) {
  for (const auto& [broker, bytes] : replies) {
    model::ByteReader r(bytes);
    std::vector<CauseBytes> causes;
    if (!r.get_array(causes) || !r.at_end())
      throw model::TraceError("unreadable collective causes");
    for (const CauseBytes& c : causes) {
      if (c.owned >= m_owned.size() || c.rank < 0) continue;
      Owned& o = *m_owned[c.owned];
      if (c.event >= o.windows.events().size() || c.rank == o.data.rank->rank) continue;
      o.windows.set_cause(c.event, c.rank);
    }
  }
}

sync::Parcels ReplayDelays::queries() {
  std::map<int, std::vector<ParcelEntry>> by_process;
  for (std::size_t k = 0; k < m_owned.size(); ++k) {
    Owned& o = *m_owned[k];
    for (auto& [cause, bytes] : o.windows.queries()) {
      const int process = m_process_of(cause);
      by_process[process].push_back({o.data.rank->rank, cause, std::move(bytes)});
      m_asked[process].emplace_back(k, cause);
    }
  }
  sync::Parcels out;
  for (const auto& [process, entries] : by_process) {
    out.emplace_back(process, encode_entries(entries));
  }
  return out;
}

sync::Parcels ReplayDelays::answers(const sync::Parcels& queries) const {
  sync::Parcels out;
  for (const auto& [process, bytes] : queries) {
    std::vector<ParcelEntry> replies;
    try {
      for (ParcelEntry& e : decode_entries(bytes)) {
        auto owned = m_owned_by_rank.find(e.cause);
        std::vector<std::byte> answer;
        if (owned != m_owned_by_rank.end()) {
          auto answered = answer_delay_queries(m_owned[owned->second]->timeline,
                                               {{e.asker, std::move(e.bytes)}}, true);
          answer = std::move(answered.front().second);
        }
        replies.push_back({e.asker, e.cause, std::move(answer)});
      }
    } catch (const model::TraceError&) {
      replies.clear();  // the asker takes an empty parcel for no answers
    }
    out.emplace_back(process, encode_entries(replies));
  }
  return out;
}

void ReplayDelays::apply(const sync::Parcels& answers) {
  std::map<int, const std::vector<std::byte>*> from_process;
  for (const auto& [process, bytes] : answers) from_process[process] = &bytes;
  std::vector<std::vector<std::optional<DelayReply>>> replies(m_owned.size());
  for (std::size_t k = 0; k < m_owned.size(); ++k) {
    replies[k].resize(m_owned[k]->windows.events().size());
  }
  for (const auto& [process, asked] : m_asked) {
    auto got = from_process.find(process);
    if (got == from_process.end() || got->second->empty()) continue;
    const std::vector<ParcelEntry> entries = decode_entries(*got->second);
    if (entries.empty()) continue;
    if (entries.size() != asked.size()) {
      throw model::TraceError("root-cause answers do not match the questions");
    }
    for (std::size_t q = 0; q < asked.size(); ++q) {
      const auto& [owned, cause] = asked[q];
      if (entries[q].bytes.empty()) continue;
      auto told = read_delay_answers(entries[q].bytes, true);
      const auto& questions = m_owned[owned]->windows.asked().at(cause);
      if (told.size() != questions.size()) {
        throw model::TraceError("root-cause answers do not match the questions");
      }
      for (std::size_t i = 0; i < told.size(); ++i) {
        told[i].from = std::max(told[i].from, questions[i].from);
        replies[owned][questions[i].event] = std::move(told[i]);
      }
    }
  }
  for (std::size_t k = 0; k < m_owned.size(); ++k) {
    for (std::size_t i = 0; i < replies[k].size(); ++i) {
      split_event(*m_owned[k], i, replies[k][i] ? &*replies[k][i] : nullptr);
    }
  }
}

void ReplayDelays::split_event(Owned& o, std::size_t event, const DelayReply* reply) {
  const RankWaitEvent& e = o.windows.events()[event];
  const std::uint64_t call = o.windows.call_of(e.record);
  const model::TraceRecord& waiter = o.data.rank->records[call];
  const double w = event_seconds(e.until - e.start);
  WaitRootCauses& causes =
      m_tally.wait_state_at(static_cast<std::uint32_t>(waiter.callsite), waiter.function, w);
  const ExcessShares to =
      reply
          ? excess_of(reply->kinds, o.timeline.between(reply->from, o.data.rank->synced[2 * call]))
          : ExcessShares{};
  if (!to.explained()) {
    causes.unexplained_s += w;
    return;
  }
  const IntervalKinds& s = reply->kinds;
  causes.computation_s += w * to.computation;
  if (s.communication() > 0) {
    causes.latency_s += w * to.communication * s.latency / s.communication();
    causes.bandwidth_s += w * to.communication * s.bandwidth / s.communication();
  }
  causes.propagated_s += w * to.waiting;
  Split& split = o.splits[event];
  split.cause_position =
      static_cast<std::uint32_t>(std::max<std::int64_t>(0, m_position_of(e.cause_rank)));
  for (const PlaceTime& p : reply->detail.places) {
    const auto kind = static_cast<DelayKind>(p.kind);
    double part = 0;
    if (kind == DelayKind::computation) {
      if (s.computation > 0) part = to.computation * p.seconds / s.computation;
    } else if (s.communication() > 0) {
      part = to.communication * p.seconds / s.communication();
    }
    if (part <= 0) continue;
    split.shares.push_back({m_tally.charge_short_term(causes, kind, p.callsite, p.function,
                                                      split.cause_position, part * w),
                            part});
  }
  for (const WaitingTime& t : reply->detail.waits) {
    if (s.waiting <= 0) break;
    const double part = to.waiting * t.seconds / s.waiting;
    causes.propagated_from[{t.callsite, t.function}] += part * w;
    split.hops.push_back({e.cause_rank, t.record, part});
  }
  charge(o, event, w);
}

void ReplayDelays::charge(Owned& o, std::size_t event, double seconds) {
  const Split& split = o.splits[event];
  for (const Share& s : split.shares) {
    m_tally.charge_long_term(s.delay, split.cause_position, s.part * seconds);
  }
  for (const Hop& h : split.hops) {
    m_pending[m_process_of(h.rank)].push_back({h.rank, h.record, h.part * seconds});
  }
}

sync::Parcels ReplayDelays::take_hops(double& seconds) {
  seconds = 0;
  sync::Parcels out;
  for (const auto& [process, hops] : m_pending) {
    std::vector<HopBytes> travel;
    travel.reserve(hops.size());
    for (const Hop& h : hops) {
      travel.push_back({h.rank, 0, h.record, h.part});
      seconds += h.part;
    }
    model::ByteWriter w;
    w.put_array(std::span<const HopBytes>(travel));
    out.emplace_back(process, w.take());
  }
  m_pending.clear();
  return out;
}

void ReplayDelays::receive_hops(const sync::Parcels& hops) {
  for (const auto& [process, bytes] : hops) {
    model::ByteReader r(bytes);
    std::vector<HopBytes> got;
    if (!r.get_array(got) || !r.at_end()) throw model::TraceError("unreadable propagated waiting");
    for (const HopBytes& h : got) {
      auto owned = m_owned_by_rank.find(h.rank);
      if (owned == m_owned_by_rank.end()) continue;
      Owned& o = *m_owned[owned->second];
      auto at = o.events_at.find(h.record);
      if (at == o.events_at.end()) continue;  // waiting of no wait state (a probe's)
      // Shared by the call's wait states by their waiting, as the whole trace's.
      const auto& events = o.windows.events();
      auto waited = [&](std::size_t i) { return event_seconds(events[i].until - events[i].start); };
      double total = 0;
      for (std::size_t i : at->second) total += waited(i);
      if (total <= 0) continue;
      for (std::size_t i : at->second) charge(o, i, h.seconds * waited(i) / total);
    }
  }
}

DelayAnalysis ReplayDelays::partial() {
  return m_tally.take();
}

void merge_delay_analysis(DelayAnalysis& into, DelayAnalysis&& from) {
  DelayTally sum(std::move(into));
  for (const auto& w : from.waits) sum.causes_at(w.callsite, w.function) += w;
  for (const auto& c : from.delays) sum.delay(sum.delay_at(c.kind, c.callsite, c.function)) += c;
  sum.sums().wait_s += from.wait_s;
  sum.sums().short_term_s += from.short_term_s;
  sum.sums().long_term_s += from.long_term_s;
  into = sum.take();
}

namespace {

template <typename Writer, typename Map, typename PutKey>
void put_map(Writer& w, const Map& map, PutKey put_key) {
  w.template put<std::uint64_t>(map.size());
  for (const auto& [key, seconds] : map) {
    put_key(key);
    w.put(seconds);
  }
}

template <typename Reader, typename Map, typename GetKey>
bool get_map(Reader& r, Map& map, std::size_t key_bytes, GetKey get_key) {
  std::uint64_t n = 0;
  if (!r.get(n) || !r.can_hold(n, key_bytes + 8)) return false;
  for (std::uint64_t i = 0; i < n; ++i) {
    typename Map::key_type key;
    double seconds = 0;
    if (!get_key(key) || !r.get(seconds)) return false;
    map[key] += seconds;
  }
  return true;
}

}  // namespace

namespace {

void put_causes(model::ByteWriter& w, const WaitRootCauses& c) {
  w.put(c.callsite);
  w.put(c.function);
  for (double x :
       {c.wait_s, c.computation_s, c.latency_s, c.bandwidth_s, c.propagated_s, c.unexplained_s})
    w.put(x);
  w.put(c.wait_states);
  put_map(w, c.propagated_from, [&](const auto& k) {
    w.put(k.first);
    w.put(k.second);
  });
  put_map(w, c.delay_places, [&](const auto& k) {
    w.put(std::get<0>(k));
    w.put(std::get<1>(k));
    w.put(std::get<2>(k));
  });
  put_map(w, c.delay_ranks, [&](const auto& k) { w.put(k); });
}

bool get_causes(model::ByteReader& r, WaitRootCauses& c) {
  bool ok = r.get(c.callsite) && r.get(c.function);
  for (double* x : {&c.wait_s, &c.computation_s, &c.latency_s, &c.bandwidth_s, &c.propagated_s,
                    &c.unexplained_s})
    ok = ok && r.get(*x);
  return ok && r.get(c.wait_states) &&
         get_map(r, c.propagated_from, 8,
                 [&](auto& k) { return r.get(k.first) && r.get(k.second); }) &&
         get_map(r, c.delay_places, 9,
                 [&](auto& k) {
                   return r.get(std::get<0>(k)) && r.get(std::get<1>(k)) && r.get(std::get<2>(k));
                 }) &&
         get_map(r, c.delay_ranks, 4, [&](auto& k) { return r.get(k); });
}

void put_costs(model::ByteWriter& w, const DelayCosts& c) {
  w.put(static_cast<std::uint8_t>(c.kind));
  w.put(c.callsite);
  w.put(c.function);
  w.put(c.short_term_s);
  w.put(c.long_term_s);
  put_map(w, c.long_term_by_rank, [&](const auto& k) { w.put(k); });
}

bool get_costs(model::ByteReader& r, DelayCosts& c) {
  std::uint8_t kind = 0;
  if (!r.get(kind) || kind > static_cast<std::uint8_t>(DelayKind::bandwidth) ||
      !r.get(c.callsite) || !r.get(c.function) || !r.get(c.short_term_s) || !r.get(c.long_term_s) ||
      !get_map(r, c.long_term_by_rank, 4, [&](auto& k) { return r.get(k); })) {
    return false;
  }
  c.kind = static_cast<DelayKind>(kind);
  return true;
}

}  // namespace

std::vector<std::byte> encode_delay_analysis(const DelayAnalysis& d) {
  model::ByteWriter w;
  model::put_vector(w, d.waits, put_causes);
  model::put_vector(w, d.delays, put_costs);
  w.put(d.wait_s);
  w.put(d.short_term_s);
  w.put(d.long_term_s);
  return w.take();
}

std::optional<DelayAnalysis> decode_delay_analysis(std::span<const std::byte> bytes) {
  model::ByteReader r(bytes);
  DelayAnalysis d;
  if (!model::get_vector(r, d.waits, 8 + 6 * 8 + 8 + 3 * 8, get_causes) ||
      !model::get_vector(r, d.delays, 1 + 8 + 16 + 8, get_costs) || !r.get(d.wait_s) ||
      !r.get(d.short_term_s) || !r.get(d.long_term_s) || !r.at_end()) {
    return std::nullopt;
  }
  return d;
}

}  // namespace mpidle::analysis
