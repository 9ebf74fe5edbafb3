#include "wait_states.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "model/function_catalog.hpp"
#include "rank_calls.hpp"
#include "send_classes.hpp"
#include "sync/collective_waits.hpp"
#include "sync/controlled_clock.hpp"
#include "sync/trace_matching.hpp"

namespace mpidle::analysis {
namespace {

using model::CollectiveKind;
using model::TraceRole;
using sync::RecordRef;

class Analysis {
 public:
  Analysis(const model::Trace& trace, const WaitObserver& observer)
      : m_trace(trace), m_observer(observer) {
    m_first_record.reserve(trace.ranks.size());
    std::uint64_t n = 0;
    for (const auto& r : trace.ranks) {
      m_first_record.push_back(n);
      n += r.records.size();
    }
  }

  std::int64_t enter(RecordRef r) const { return m_trace.ranks[r.rank].synced[2 * r.record]; }
  std::int64_t exit(RecordRef r) const { return m_trace.ranks[r.rank].synced[2 * r.record + 1]; }
  const model::TraceRecord& record(RecordRef r) const {
    return m_trace.ranks[r.rank].records[r.record];
  }

  // Waiting of the call at `at` until `until`, bounded by the call's duration;
  // `cause`: the partner's record whose enter is `until`.
  void wait(Pattern p, RecordRef at, std::int64_t until, RecordRef cause) {
    m_sites.wait(p, record(at), static_cast<std::uint32_t>(at.rank), enter(at), exit(at), until);
    observe(p, at, enter(at), until, cause);
  }

  // Tells the observer of a wait state from `from` to `until` (within the call).
  void observe(Pattern p, RecordRef at, std::int64_t from, std::int64_t until, RecordRef cause) {
    if (!m_observer) return;
    const std::int64_t to = std::min(until, exit(at));
    if (to > from) m_observer(WaitEvent{p, at, from, to, cause});
  }

  // Late sender, per receiving call: the latest send start among the messages
  // it completed. A blocking receive completes one; a Waitall may complete many.
  void note_receive(const sync::MessageMatch& m) {
    ++m_out.messages;
    latest(m_latest_send, m.receive_call, enter(m.send), m.send);
    m_sent_at[key_of(m.posted)] = m.send;
  }

  // The call that judges a send for the late-receiver rule: a blocking send's own,
  // or the call that completed an Isend; none for others.
  std::optional<RecordRef> judging_call(const sync::MessageMatch& m) const {
    const auto& rec = record(m.send);
    if (judged_send(rec)) return m.send;
    if (rec.role != TraceRole::isend) return std::nullopt;
    const auto call = completing_call(m_send_completions[m.send.rank], m.send.record);
    if (!call) return std::nullopt;
    return RecordRef{m.send.rank, *call};
  }

  // The classes of the trace's sends, for the late-receiver rule.
  void note_send_class(const sync::MessageMatch& m) {
    if (const auto call = judging_call(m))
      note_send(m_send_classes, record(m.send), enter(*call), exit(*call), enter(m.posted));
  }

  // Late receiver: a send (or the call completing it) held until its receive was
  // posted.
  void late_receiver(const sync::MessageMatch& m) {
    const auto call = judging_call(m);
    if (!call) return;
    const std::int64_t post = enter(m.posted);
    if (waited_for_receiver(m_send_classes, record(m.send), enter(*call), exit(*call), post))
      latest(m_latest_post, *call, post, m.posted);
  }

  // Every call's point-to-point waiting, once (SiteWaitsBuilder::point_to_point).
  void point_to_point() {
    constexpr std::int64_t none = SiteWaitsBuilder::kNoTime;
    for (const auto& [key, call] : m_latest_send) {
      auto post = m_latest_post.find(key);
      const RecordRef at = call.call;
      m_sites.point_to_point(record(at), static_cast<std::uint32_t>(at.rank), enter(at), exit(at),
                             call.until, post == m_latest_post.end() ? none : post->second.until);
      observe(Pattern::late_sender, at, enter(at), call.until, call.cause);
      if (post != m_latest_post.end()) {
        observe(Pattern::late_receiver, at, std::max(enter(at), call.until), post->second.until,
                post->second.cause);
      }
    }
    for (const auto& [key, call] : m_latest_post) {
      if (m_latest_send.count(key) != 0) continue;  // done above
      const RecordRef at = call.call;
      m_sites.point_to_point(record(at), static_cast<std::uint32_t>(at.rank), enter(at), exit(at),
                             none, call.until);
      observe(Pattern::late_receiver, at, enter(at), call.until, call.cause);
    }
  }

  // Late sender at a blocking probe: until the send of the message it found.
  void probes() {
    for (std::uint32_t r = 0; r < m_trace.ranks.size(); ++r) {
      for (const auto& [probe, posted] : probe_receives(m_trace, m_trace.ranks[r])) {
        auto it = m_sent_at.find(m_first_record[r] + posted);
        if (it != m_sent_at.end())
          wait(Pattern::late_sender, RecordRef{r, probe}, enter(it->second), it->second);
      }
    }
  }

  // A call's latest partner: until when it waits for it, and the partner's record.
  struct LatestPartner {
    RecordRef call;
    std::int64_t until = 0;
    RecordRef cause;
  };
  using Latest = std::unordered_map<std::uint64_t, LatestPartner>;
  void latest(Latest& of, RecordRef call, std::int64_t until, RecordRef cause) {
    auto [it, added] = of.try_emplace(key_of(call), LatestPartner{call, until, cause});
    if (!added && until > it->second.until) {
      it->second.until = until;
      it->second.cause = cause;
    }
  }

  // A record's position in the whole trace: unique for any number of records.
  std::uint64_t key_of(RecordRef r) const { return m_first_record[r.rank] + r.record; }

  void collective(const sync::CollectiveMatch& c) {
    if (!c.complete()) return;
    // Non-blocking collectives (started here, completed in a Wait) are left out.
    for (const auto& m : c.members) {
      if (record(m.enter).role != TraceRole::collective) return;
    }
    ++m_out.collectives;
    m_enters.clear();
    for (const auto& m : c.members) m_enters.push_back({m.rank, m.order, enter(m.enter)});
    sync::collective_wait_until(c.kind, c.root, m_enters, m_until, m_by_order);
    const auto pattern =
        collective_pattern(c.kind, m_trace.functions.at(record(c.members.front().enter).function));
    if (!pattern) return;
    // The member whose entry each waits for: the one that entered at `until`.
    m_entered_at.clear();
    if (m_observer) {
      for (std::size_t i = 0; i < c.members.size(); ++i)
        m_entered_at.try_emplace(enter(c.members[i].enter), i);
    }
    for (std::size_t i = 0; i < c.members.size(); ++i) {
      if (m_until[i] == sync::kClcNever) continue;
      auto cause = m_entered_at.find(m_until[i]);
      wait(*pattern, c.members[i].enter, m_until[i],
           cause == m_entered_at.end() ? c.members[i].enter : c.members[cause->second].enter);
    }
  }

  WaitStates run(const sync::TraceMatching& matching, const Progress& progress) {
    for (const auto& r : m_trace.ranks) {
      if (r.synced.size() != 2 * r.records.size()) {
        throw model::TraceError("rank " + std::to_string(r.rank) +
                                " has no synchronized timestamps (run mpidle sync first)");
      }
      m_out.events += r.records.size();
    }
    const std::size_t work = matching.messages.size() + matching.collectives.size();
    const std::size_t step = std::max<std::size_t>(work / 20, 1 << 16);
    std::size_t done = 0;
    auto tick = [&] {
      if (progress && ++done % step == 0) progress(static_cast<double>(done) / work);
    };
    for (const auto& r : m_trace.ranks) m_send_completions.push_back(send_completions(r));
    for (const auto& m : matching.messages) note_send_class(m);
    for (const auto& m : matching.messages) {
      note_receive(m);
      late_receiver(m);
      tick();
    }
    point_to_point();
    probes();
    for (const auto& c : matching.collectives) {
      collective(c);
      tick();
    }
    if (progress) progress(1.0);
    return std::move(m_out);
  }

 private:
  const model::Trace& m_trace;
  const WaitObserver& m_observer;
  std::vector<std::uint64_t> m_first_record;  // per rank, in the whole trace
  WaitStates m_out;
  SiteWaitsBuilder m_sites{m_out};
  // Scratch room of collective(), kept across instances.
  std::vector<sync::CollectiveEnter> m_enters;
  std::vector<std::int64_t> m_until;
  std::vector<std::size_t> m_by_order;
  std::unordered_map<std::int64_t, std::size_t> m_entered_at;  // enter → member
  // Receiving call → (its record, the latest start of a send it received); call
  // judging a send → (its record, the latest post of a receive it waited for).
  Latest m_latest_send, m_latest_post;
  std::unordered_map<std::uint64_t, RecordRef> m_sent_at;  // posting record → send
  std::vector<SendCompletions> m_send_completions;         // per rank
  SendClasses m_send_classes;
};

}  // namespace

SiteWaitsBuilder::SiteWaitsBuilder(WaitStates& out) : m_out(out) {
  for (std::size_t i = 0; i < out.sites.size(); ++i) {
    m_index.emplace(std::pair{out.sites[i].callsite, out.sites[i].function}, i);
  }
}

SiteWaits& SiteWaitsBuilder::site(std::uint32_t callsite, std::uint32_t function) {
  auto [it, added] = m_index.try_emplace({callsite, function}, m_out.sites.size());
  if (added) {
    SiteWaits s;
    s.callsite = callsite;
    s.function = function;
    m_out.sites.push_back(std::move(s));
  }
  return m_out.sites[it->second];
}

void SiteWaitsBuilder::wait(Pattern p, const model::TraceRecord& call, std::uint32_t position,
                            std::int64_t start, std::int64_t end, std::int64_t until) {
  const std::int64_t waited = std::min(until, end) - start;
  if (waited <= 0) return;
  SiteWaits& s = site(static_cast<std::uint32_t>(call.callsite), call.function);
  const double seconds = static_cast<double>(waited) * 1e-9;
  const auto k = static_cast<std::size_t>(p);
  s.total[k] += seconds;
  s.by_rank[position][k] += seconds;
  ++s.instances;
  m_out.totals[k] += seconds;
}

std::optional<Pattern> collective_pattern(model::CollectiveKind kind, std::string_view function) {
  switch (kind) {
    case CollectiveKind::n_to_n:
      return model::is_barrier(function) ? Pattern::wait_barrier : Pattern::wait_nxn;
    case CollectiveKind::one_to_n:
      return Pattern::late_broadcast;
    case CollectiveKind::n_to_one:
      return Pattern::early_reduce;
    case CollectiveKind::scan:
    case CollectiveKind::exscan:
      return Pattern::early_scan;
    case CollectiveKind::none:
      break;
  }
  return std::nullopt;
}

std::int64_t SiteWaitsBuilder::point_to_point(const model::TraceRecord& call,
                                              std::uint32_t position, std::int64_t start,
                                              std::int64_t end, std::int64_t latest_send,
                                              std::int64_t latest_post) {
  std::int64_t waited = 0;
  std::int64_t from = start;
  if (latest_send != kNoTime) {
    wait(Pattern::late_sender, call, position, start, end, latest_send);
    waited += std::max<std::int64_t>(0, std::min(latest_send, end) - start);
    from = std::max(start, latest_send);
  }
  if (latest_post != kNoTime) {
    wait(Pattern::late_receiver, call, position, from, end, latest_post);
    waited += std::max<std::int64_t>(0, std::min(latest_post, end) - from);
  }
  return waited;
}

const char* pattern_key(Pattern p) {
  static const char* const keys[kPatterns] = {"late_sender",  "late_receiver",  "wait_nxn",
                                              "wait_barrier", "late_broadcast", "early_reduce",
                                              "early_scan"};
  return keys[static_cast<std::size_t>(p)];
}

WaitStates analyze_wait_states(const model::Trace& trace, const sync::TraceMatching& matching,
                               const Progress& progress, const WaitObserver& observer) {
  return Analysis(trace, observer).run(matching, progress);
}

WaitStates analyze_wait_states(const model::Trace& trace, const Progress& progress,
                               const WaitObserver& observer) {
  return analyze_wait_states(trace, sync::match_trace(trace), progress, observer);
}

}  // namespace mpidle::analysis
