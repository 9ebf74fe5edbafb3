#include "rank_waits.hpp"

#include <algorithm>
#include <type_traits>
#include <unordered_map>

#include "model/function_catalog.hpp"
#include "model/profile_tables.hpp"
#include "rank_calls.hpp"

namespace mpidle::analysis {
namespace {

using model::TraceRole;

constexpr std::int64_t kNoSend = SiteWaitsBuilder::kNoTime;

// Each matched send of the rank that the late-receiver rule judges: a blocking send
// (the call's first record, not a Sendrecv's send half), judged at its own call,
// or a non-blocking one, judged at the call that completed it. `visit(call, send
// record, post, channel)`: the judged call, the sending record (its class), where its
// receive was posted, and its channel.
template <typename Visit>
void for_each_matched_send(const model::RankTrace& rank, const sync::RankPartners& partners,
                           Visit visit) {
  const auto completions = send_completions(rank);
  for (const auto& [key, sends] : partners.items.sends) {
    auto it = partners.posted_enter.find(key);
    if (it == partners.posted_enter.end()) continue;
    for (std::size_t k = 0; k < it->second.size() && k < sends.size(); ++k) {
      const std::uint64_t record = sends[k].record;
      const auto& rec = rank.records[record];
      if (judged_send(rec)) {
        visit(record, rec, it->second[k], key);
      } else if (rec.role == TraceRole::isend) {
        if (const auto call = completing_call(completions, record))
          visit(*call, rec, it->second[k], key);
      }
    }
  }
}

// A call that waited for a partner: until when, and the partner's world rank.
// Sorted by call, then time: a call's latest partner last.
struct Waited {
  std::uint64_t call = 0;
  std::int64_t until = 0;
  std::int32_t partner = -1;
  bool operator<(const Waited& o) const {
    return call != o.call     ? call < o.call
           : until != o.until ? until < o.until
                              : partner < o.partner;
  }
};
static_assert(std::is_trivially_copyable_v<Waited>);

class RankAnalysis {
 public:
  RankAnalysis(const model::Trace& tables, const model::RankTrace& rank, std::uint32_t position,
               CallWaits* call_waits, const RankWaitObserver& observer)
      : m_tables(tables),
        m_rank(rank),
        m_position(position),
        m_call_waits(call_waits),
        m_observer(observer) {
    if (rank.synced.size() != 2 * rank.records.size()) {
      throw model::TraceError("rank " + std::to_string(rank.rank) +
                              " has no synchronized timestamps");
    }
    m_out.events = rank.records.size();
    if (m_call_waits) m_call_waits->assign(rank.records.size(), 0);
  }

  std::int64_t enter(std::uint64_t record) const { return m_rank.synced[2 * record]; }
  std::int64_t exit(std::uint64_t record) const { return m_rank.synced[2 * record + 1]; }

  // The observer hears of a wait of the call at `record` from `from` to `until`
  // (within its exit), ended by `cause_rank`.
  void observe(Pattern p, std::uint64_t record, std::int64_t from, std::int64_t until,
               std::int32_t cause_rank) {
    if (!m_observer) return;
    const std::int64_t to = std::min(until, exit(record));
    if (to > from) m_observer(RankWaitEvent{p, record, from, to, cause_rank});
  }

  // The call waited until `until`.
  void wait(Pattern p, std::uint64_t record, std::int64_t until) {
    m_sites.wait(p, m_rank.records[record], m_position, enter(record), exit(record), until);
    if (m_call_waits) {
      (*m_call_waits)[record] +=
          std::max<std::int64_t>(0, std::min(until, exit(record)) - enter(record));
    }
  }

  // Late sender at receives and the calls completing Irecvs, late receiver at
  // blocking sends and at the calls completing Isends, once per call
  // (SiteWaitsBuilder::point_to_point): (call, until) pairs sorted by call, in arrays
  // that are file-backed in an out-of-core finalize.
  void point_to_point(const sync::RankPartners& p, const SendClasses& classes) {
    model::LargeArray<Waited> senders, receivers;
    for (const auto& [key, receives] : p.items.receives) {
      auto it = p.send_enter.find(key);
      if (it == p.send_enter.end()) continue;
      for (std::size_t k = 0; k < it->second.size() && k < receives.size(); ++k) {
        ++m_out.messages;
        senders.push_back({receives[k].call.record, it->second[k], std::get<1>(key)});
      }
    }
    for_each_matched_send(m_rank, p,
                          [&](std::uint64_t call, const model::TraceRecord& rec, std::int64_t post,
                              const sync::ChannelKey& key) {
                            if (waited_for_receiver(classes, rec, enter(call), exit(call), post))
                              receivers.push_back({call, post, std::get<2>(key)});
                          });
    std::sort(senders.begin(), senders.end());
    std::sort(receivers.begin(), receivers.end());
    constexpr std::int64_t none = SiteWaitsBuilder::kNoTime;
    // The latest `until` of the call at pairs[i] and its partner, and i past its pairs.
    auto latest = [](const auto& pairs, std::size_t& i, std::int32_t* partner) {
      std::size_t j = i;
      while (j + 1 < pairs.size() && pairs[j + 1].call == pairs[i].call) ++j;
      const std::int64_t until = pairs[j].until;  // sorted last
      *partner = pairs[j].partner;
      i = j + 1;
      return until;
    };
    std::size_t s = 0, r = 0;
    while (s < senders.size() || r < receivers.size()) {
      const std::uint64_t call =
          r == receivers.size() || (s < senders.size() && senders[s].call < receivers[r].call)
              ? senders[s].call
              : receivers[r].call;
      std::int32_t sender = -1, receiver = -1;
      const std::int64_t sent =
          s < senders.size() && senders[s].call == call ? latest(senders, s, &sender) : none;
      const std::int64_t post = r < receivers.size() && receivers[r].call == call
                                    ? latest(receivers, r, &receiver)
                                    : none;
      const std::int64_t waited = m_sites.point_to_point(m_rank.records[call], m_position,
                                                         enter(call), exit(call), sent, post);
      if (m_call_waits) (*m_call_waits)[call] += waited;
      // As the whole trace's analysis observes them: the late sender first, then
      // the late receiver from where that waiting ended.
      if (sent != none) observe(Pattern::late_sender, call, enter(call), sent, sender);
      if (post != none) {
        observe(Pattern::late_receiver, call,
                sent != none ? std::max(enter(call), sent) : enter(call), post, receiver);
      }
    }
  }

  // Late sender at a blocking probe: until the send of the message it found.
  void probes(const sync::RankPartners& p) {
    const auto probes = probe_receives(m_tables, m_rank);
    if (probes.empty()) return;
    // Only the receives the probes found: posting record -> its send's enter.
    std::unordered_map<std::uint64_t, std::int64_t> sent_at;
    for (const auto& [probe, posted] : probes) sent_at.emplace(posted, kNoSend);
    for (const auto& [key, receives] : p.items.receives) {
      auto it = p.send_enter.find(key);
      if (it == p.send_enter.end()) continue;
      for (std::size_t k = 0; k < it->second.size() && k < receives.size(); ++k) {
        auto found = sent_at.find(receives[k].posted.record);
        if (found != sent_at.end()) found->second = it->second[k];
      }
    }
    for (const auto& [probe, posted] : probes) {
      const std::int64_t sent = sent_at.at(posted);
      if (sent != kNoSend) wait(Pattern::late_sender, probe, sent);
    }
  }

  void collectives(const sync::RankPartners& p) {
    for (std::size_t i = 0; i < p.items.collectives.size() && i < p.until.size(); ++i) {
      if (p.until[i] == sync::kClcNever) continue;
      const auto& c = p.items.collectives[i];
      const std::uint64_t record = c.member.enter.record;
      const auto pattern =
          collective_pattern(c.kind, m_tables.functions.at(m_rank.records[record].function));
      if (!pattern) continue;
      wait(*pattern, record, p.until[i]);
      observe(*pattern, record, enter(record), p.until[i],
              i < p.cause_rank.size() ? p.cause_rank[i] : -1);
    }
  }

  WaitStates take() { return std::move(m_out); }

 private:
  const model::Trace& m_tables;
  const model::RankTrace& m_rank;
  std::uint32_t m_position;
  CallWaits* m_call_waits;
  const RankWaitObserver& m_observer;
  WaitStates m_out;
  SiteWaitsBuilder m_sites{m_out};
};

}  // namespace

SendClasses send_classes(const model::RankTrace& rank, const sync::RankPartners& partners) {
  SendClasses out;
  if (rank.synced.size() != 2 * rank.records.size()) return out;
  for_each_matched_send(rank, partners,
                        [&](std::uint64_t call, const model::TraceRecord& rec, std::int64_t post,
                            const sync::ChannelKey&) {
                          note_send(out, rec, rank.synced[2 * call], rank.synced[2 * call + 1],
                                    post);
                        });
  return out;
}

WaitStates rank_wait_states(const model::Trace& tables, const model::RankTrace& rank,
                            std::uint32_t position, const sync::RankPartners& partners,
                            const SendClasses& classes, CallWaits* call_waits,
                            const RankWaitObserver& observer) {
  RankAnalysis a(tables, rank, position, call_waits, observer);
  a.point_to_point(partners, classes);
  a.probes(partners);
  a.collectives(partners);
  return a.take();
}

void merge_wait_states(WaitStates& into, WaitStates&& from) {
  SiteWaitsBuilder sites(into);
  for (auto& s : from.sites) {
    SiteWaits& t = sites.site(s.callsite, s.function);
    for (std::size_t k = 0; k < kPatterns; ++k) t.total[k] += s.total[k];
    for (const auto& [position, seconds] : s.by_rank) {
      auto& row = t.by_rank[position];
      for (std::size_t k = 0; k < kPatterns; ++k) row[k] += seconds[k];
    }
    t.instances += s.instances;
  }
  for (std::size_t k = 0; k < kPatterns; ++k) into.totals[k] += from.totals[k];
  into.events += from.events;
  into.messages += from.messages;
  into.collectives += from.collectives;
}

}  // namespace mpidle::analysis
