#include "wait_states.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "model/function_catalog.hpp"
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
  explicit Analysis(const model::Trace& trace) : m_trace(trace) {
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

  // Waiting of the call at `at` until `until`, bounded by the call's duration.
  void wait(Pattern p, RecordRef at, std::int64_t until) {
    m_sites.wait(p, record(at), static_cast<std::uint32_t>(at.rank), enter(at), exit(at), until);
  }

  // Late sender, per receiving call: the latest send start among the messages
  // it completed. A blocking receive completes one; a Waitall may complete many.
  void note_receive(const sync::MessageMatch& m) {
    ++m_out.messages;
    const std::uint64_t key = key_of(m.receive_call);
    auto [it, added] = m_latest_send.try_emplace(key, m.receive_call, enter(m.send));
    if (!added) it->second.second = std::max(it->second.second, enter(m.send));
  }

  void late_senders() {
    for (const auto& [key, call] : m_latest_send) {
      wait(Pattern::late_sender, call.first, call.second);
    }
  }

  // Fastest duration of each (function, size class) of blocking sends in the trace.
  void note_send_cost(const sync::MessageMatch& m) {
    const auto& rec = record(m.send);
    if (rec.role != TraceRole::send || rec.extra != 0) return;
    const auto k = std::pair{rec.function, model::size_class(rec.bytes)};
    const std::int64_t d = exit(m.send) - enter(m.send);
    auto [it, added] = m_fastest_send.try_emplace(k, d);
    if (!added) it->second = std::min(it->second, d);
  }

  // Late receiver: a blocking send held until its receive was posted.
  void late_receiver(const sync::MessageMatch& m) {
    const auto& rec = record(m.send);
    if (rec.role != TraceRole::send || rec.extra != 0) return;
    const std::int64_t post = enter(m.posted);
    if (exit(m.send) <= post || post <= enter(m.send)) return;
    const bool synchronous = (rec.flags & model::kTraceSynchronous) != 0;
    if (!synchronous) {
      const auto it = m_fastest_send.find({rec.function, model::size_class(rec.bytes)});
      const std::int64_t fastest = it == m_fastest_send.end() ? 0 : it->second;
      if (exit(m.send) - enter(m.send) <= 2 * fastest) return;
    }
    wait(Pattern::late_receiver, m.send, post);
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
    Pattern pattern = Pattern::wait_nxn;
    switch (c.kind) {
      case CollectiveKind::n_to_n:
        pattern = model::is_barrier(m_trace.functions.at(record(c.members.front().enter).function))
                      ? Pattern::wait_barrier
                      : Pattern::wait_nxn;
        break;
      case CollectiveKind::one_to_n:
        pattern = Pattern::late_broadcast;
        break;
      case CollectiveKind::n_to_one:
        pattern = Pattern::early_reduce;
        break;
      case CollectiveKind::scan:
      case CollectiveKind::exscan:
        pattern = Pattern::early_scan;
        break;
      case CollectiveKind::none:
        return;
    }
    for (std::size_t i = 0; i < c.members.size(); ++i) {
      if (m_until[i] != sync::kClcNever) wait(pattern, c.members[i].enter, m_until[i]);
    }
  }

  WaitStates run(const Progress& progress) {
    for (const auto& r : m_trace.ranks) {
      if (r.synced.size() != 2 * r.records.size()) {
        throw model::TraceError("rank " + std::to_string(r.rank) +
                                " has no synchronized timestamps (run mpidle sync first)");
      }
      m_out.events += r.records.size();
    }
    const auto matching = sync::match_trace(m_trace);
    const std::size_t work = matching.messages.size() + matching.collectives.size();
    const std::size_t step = std::max<std::size_t>(work / 20, 1 << 16);
    std::size_t done = 0;
    auto tick = [&] {
      if (progress && ++done % step == 0) progress(static_cast<double>(done) / work);
    };
    for (const auto& m : matching.messages) note_send_cost(m);
    for (const auto& m : matching.messages) {
      note_receive(m);
      late_receiver(m);
      tick();
    }
    late_senders();
    for (const auto& c : matching.collectives) {
      collective(c);
      tick();
    }
    if (progress) progress(1.0);
    return std::move(m_out);
  }

 private:
  const model::Trace& m_trace;
  std::vector<std::uint64_t> m_first_record;  // per rank, in the whole trace
  WaitStates m_out;
  SiteWaitsBuilder m_sites{m_out};
  // Scratch room of collective(), kept across instances.
  std::vector<sync::CollectiveEnter> m_enters;
  std::vector<std::int64_t> m_until;
  std::vector<std::size_t> m_by_order;
  // Receiving call → (its record, the latest start of a send it received).
  std::unordered_map<std::uint64_t, std::pair<RecordRef, std::int64_t>> m_latest_send;
  std::map<std::pair<std::uint32_t, std::int32_t>, std::int64_t> m_fastest_send;
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

const char* pattern_key(Pattern p) {
  static const char* const keys[kPatterns] = {"late_sender",  "late_receiver",  "wait_nxn",
                                              "wait_barrier", "late_broadcast", "early_reduce",
                                              "early_scan"};
  return keys[static_cast<std::size_t>(p)];
}

WaitStates analyze_wait_states(const model::Trace& trace, const Progress& progress) {
  return Analysis(trace).run(progress);
}

}  // namespace mpidle::analysis
