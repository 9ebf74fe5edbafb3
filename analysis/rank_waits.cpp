#include "rank_waits.hpp"

#include <algorithm>

#include "model/function_catalog.hpp"
#include "model/profile_tables.hpp"

namespace mpidle::analysis {
namespace {

using model::CollectiveKind;
using model::TraceRole;

// Each matched blocking send of the rank (the call's first record, not a
// Sendrecv's send half): its record index, the record, and where its receive was
// posted. The sends analyze_wait_states uses for the late-receiver rule.
template <typename Visit>
void for_each_matched_blocking_send(const model::RankTrace& rank,
                                    const sync::RankPartners& partners, Visit visit) {
  for (const auto& [key, sends] : partners.items.sends) {
    auto it = partners.posted_enter.find(key);
    if (it == partners.posted_enter.end()) continue;
    for (std::size_t k = 0; k < it->second.size() && k < sends.size(); ++k) {
      const std::uint64_t call = sends[k].record;
      const auto& rec = rank.records[call];
      if (rec.role == TraceRole::send && rec.extra == 0) visit(call, rec, it->second[k]);
    }
  }
}

void keep_fastest(FastestSends& fastest, std::pair<std::uint32_t, std::int32_t> kind,
                  std::int64_t duration) {
  auto [at, added] = fastest.try_emplace(kind, duration);
  if (!added) at->second = std::min(at->second, duration);
}

class RankAnalysis {
 public:
  RankAnalysis(const model::Trace& tables, const model::RankTrace& rank, std::uint32_t position,
               CallWaits* call_waits)
      : m_tables(tables), m_rank(rank), m_position(position), m_call_waits(call_waits) {
    if (rank.synced.size() != 2 * rank.records.size()) {
      throw model::TraceError("rank " + std::to_string(rank.rank) +
                              " has no synchronized timestamps");
    }
    m_out.events = rank.records.size();
    if (m_call_waits) m_call_waits->assign(rank.records.size(), 0);
  }

  std::int64_t enter(std::uint64_t record) const { return m_rank.synced[2 * record]; }
  std::int64_t exit(std::uint64_t record) const { return m_rank.synced[2 * record + 1]; }

  void wait(Pattern p, std::uint64_t record, std::int64_t until) {
    m_sites.wait(p, m_rank.records[record], m_position, enter(record), exit(record), until);
    if (m_call_waits) {
      (*m_call_waits)[record] +=
          std::max<std::int64_t>(0, std::min(until, exit(record)) - enter(record));
    }
  }

  void late_senders(const sync::RankPartners& p) {
    // A call that completes several receives waits once, for the latest sender:
    // (call, send enter) pairs sorted by call, in an array that is file-backed in an
    // out-of-core finalize (a map's node per receive was 64 bytes of heap).
    model::LargeArray<std::pair<std::uint64_t, std::int64_t>> latest;
    for (const auto& [key, receives] : p.items.receives) {
      auto it = p.send_enter.find(key);
      if (it == p.send_enter.end()) continue;
      for (std::size_t k = 0; k < it->second.size() && k < receives.size(); ++k) {
        ++m_out.messages;
        latest.emplace_back(receives[k].call.record, it->second[k]);
      }
    }
    std::sort(latest.begin(), latest.end());
    for (std::size_t i = 0; i < latest.size();) {
      std::size_t j = i;
      while (j + 1 < latest.size() && latest[j + 1].first == latest[i].first) ++j;
      wait(Pattern::late_sender, latest[i].first, latest[j].second);  // the latest: sorted last
      i = j + 1;
    }
  }

  void late_receivers(const sync::RankPartners& p, const FastestSends& fastest) {
    for_each_matched_blocking_send(
        m_rank, p, [&](std::uint64_t call, const model::TraceRecord& rec, std::int64_t post) {
          if (exit(call) <= post || post <= enter(call)) return;
          if ((rec.flags & model::kTraceSynchronous) == 0) {
            const auto f = fastest.find({rec.function, model::size_class(rec.bytes)});
            const std::int64_t least = f == fastest.end() ? 0 : f->second;
            if (exit(call) - enter(call) <= 2 * least) return;
          }
          wait(Pattern::late_receiver, call, post);
        });
  }

  void collectives(const sync::RankPartners& p) {
    for (std::size_t i = 0; i < p.items.collectives.size() && i < p.until.size(); ++i) {
      if (p.until[i] == sync::kClcNever) continue;
      const auto& c = p.items.collectives[i];
      const std::uint64_t record = c.member.enter.record;
      Pattern pattern = Pattern::wait_nxn;
      switch (c.kind) {
        case CollectiveKind::n_to_n:
          pattern = model::is_barrier(m_tables.functions.at(m_rank.records[record].function))
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
          continue;
      }
      wait(pattern, record, p.until[i]);
    }
  }

  WaitStates take() { return std::move(m_out); }

 private:
  const model::Trace& m_tables;
  const model::RankTrace& m_rank;
  std::uint32_t m_position;
  CallWaits* m_call_waits;
  WaitStates m_out;
  SiteWaitsBuilder m_sites{m_out};
};

}  // namespace

FastestSends fastest_sends(const model::RankTrace& rank, const sync::RankPartners& partners) {
  FastestSends out;
  if (rank.synced.size() != 2 * rank.records.size()) return out;
  for_each_matched_blocking_send(
      rank, partners, [&](std::uint64_t call, const model::TraceRecord& rec, std::int64_t) {
        keep_fastest(out, {rec.function, model::size_class(rec.bytes)},
                     rank.synced[2 * call + 1] - rank.synced[2 * call]);
      });
  return out;
}

void merge_fastest_sends(FastestSends& into, const FastestSends& from) {
  for (const auto& [kind, duration] : from) keep_fastest(into, kind, duration);
}

WaitStates rank_wait_states(const model::Trace& tables, const model::RankTrace& rank,
                            std::uint32_t position, const sync::RankPartners& partners,
                            const FastestSends& fastest, CallWaits* call_waits) {
  RankAnalysis a(tables, rank, position, call_waits);
  a.late_senders(partners);
  a.late_receivers(partners, fastest);
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
