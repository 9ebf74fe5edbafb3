#include "rank_waits.hpp"

#include <algorithm>

#include "model/profile_tables.hpp"

namespace mpidle::analysis {
namespace {

using model::CollectiveKind;
using model::TraceRole;

class RankAnalysis {
 public:
  RankAnalysis(const model::Trace& tables, const model::RankTrace& rank, std::uint32_t position)
      : m_tables(tables), m_rank(rank), m_position(position) {
    if (rank.synced.size() != 2 * rank.records.size()) {
      throw model::TraceError("rank " + std::to_string(rank.rank) +
                              " has no synchronized timestamps");
    }
    m_out.events = rank.records.size();
  }

  std::int64_t enter(std::uint64_t record) const { return m_rank.synced[2 * record]; }
  std::int64_t exit(std::uint64_t record) const { return m_rank.synced[2 * record + 1]; }

  // As in analyze_wait_states: the call's wait until `until`, within its duration.
  void wait(Pattern p, std::uint64_t record, std::int64_t until) {
    const std::int64_t waited = std::min(until, exit(record)) - enter(record);
    if (waited <= 0) return;
    const auto& rec = m_rank.records[record];
    auto [it, added] = m_index.try_emplace({rec.callsite, rec.function}, m_out.sites.size());
    if (added) {
      SiteWaits s;
      s.callsite = static_cast<std::uint32_t>(rec.callsite);
      s.function = rec.function;
      m_out.sites.push_back(std::move(s));
    }
    SiteWaits& s = m_out.sites[it->second];
    const double seconds = static_cast<double>(waited) * 1e-9;
    const auto k = static_cast<std::size_t>(p);
    s.total[k] += seconds;
    s.by_rank[m_position][k] += seconds;
    ++s.instances;
    m_out.totals[k] += seconds;
  }

  void late_senders(const sync::RankPartners& p) {
    // A call that completes several receives waits once, for the latest sender.
    std::map<std::uint64_t, std::int64_t> latest;
    for (const auto& [key, receives] : p.items.receives) {
      auto it = p.send_enter.find(key);
      if (it == p.send_enter.end()) continue;
      for (std::size_t k = 0; k < it->second.size() && k < receives.size(); ++k) {
        ++m_out.messages;
        auto [at, added] = latest.try_emplace(receives[k].call.record, it->second[k]);
        if (!added) at->second = std::max(at->second, it->second[k]);
      }
    }
    for (const auto& [call, send] : latest) wait(Pattern::late_sender, call, send);
  }

  void late_receivers(const sync::RankPartners& p, const FastestSends& fastest) {
    for (const auto& [key, sends] : p.items.sends) {
      auto it = p.posted_enter.find(key);
      if (it == p.posted_enter.end()) continue;
      for (std::size_t k = 0; k < it->second.size() && k < sends.size(); ++k) {
        const std::uint64_t call = sends[k].record;
        const auto& rec = m_rank.records[call];
        if (rec.role != TraceRole::send || rec.extra != 0) continue;
        const std::int64_t post = it->second[k];
        if (exit(call) <= post || post <= enter(call)) continue;
        if ((rec.flags & model::kTraceSynchronous) == 0) {
          const auto f = fastest.find({rec.function, model::size_class(rec.bytes)});
          const std::int64_t least = f == fastest.end() ? 0 : f->second;
          if (exit(call) - enter(call) <= 2 * least) continue;
        }
        wait(Pattern::late_receiver, call, post);
      }
    }
  }

  void collectives(const sync::RankPartners& p) {
    for (std::size_t i = 0; i < p.items.collectives.size() && i < p.until.size(); ++i) {
      if (p.until[i] == sync::kClcNever) continue;
      const auto& c = p.items.collectives[i];
      const std::uint64_t record = c.member.enter.record;
      Pattern pattern = Pattern::wait_nxn;
      switch (c.kind) {
        case CollectiveKind::n_to_n:
          pattern = m_tables.functions.at(m_rank.records[record].function).find("Barrier") !=
                            std::string::npos
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
  WaitStates m_out;
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::size_t> m_index;
};

}  // namespace

FastestSends fastest_sends(const model::RankTrace& rank, const sync::RankPartners& partners) {
  FastestSends out;
  if (rank.synced.size() != 2 * rank.records.size()) return out;
  for (const auto& [key, sends] : partners.items.sends) {
    auto it = partners.posted_enter.find(key);
    if (it == partners.posted_enter.end()) continue;
    for (std::size_t k = 0; k < it->second.size() && k < sends.size(); ++k) {
      const std::uint64_t call = sends[k].record;
      const auto& rec = rank.records[call];
      if (rec.role != TraceRole::send || rec.extra != 0) continue;
      const std::int64_t d = rank.synced[2 * call + 1] - rank.synced[2 * call];
      auto [at, added] = out.try_emplace({rec.function, model::size_class(rec.bytes)}, d);
      if (!added) at->second = std::min(at->second, d);
    }
  }
  return out;
}

void merge_fastest_sends(FastestSends& into, const FastestSends& from) {
  for (const auto& [key, d] : from) {
    auto [at, added] = into.try_emplace(key, d);
    if (!added) at->second = std::min(at->second, d);
  }
}

WaitStates rank_wait_states(const model::Trace& tables, const model::RankTrace& rank,
                            std::uint32_t position, const sync::RankPartners& partners,
                            const FastestSends& fastest) {
  RankAnalysis a(tables, rank, position);
  a.late_senders(partners);
  a.late_receivers(partners, fastest);
  a.collectives(partners);
  return a.take();
}

void merge_wait_states(WaitStates& into, WaitStates&& from) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> index;
  for (std::size_t i = 0; i < into.sites.size(); ++i) {
    index.emplace(std::pair{into.sites[i].callsite, into.sites[i].function}, i);
  }
  for (auto& s : from.sites) {
    auto [it, added] = index.try_emplace({s.callsite, s.function}, into.sites.size());
    if (added) {
      into.sites.push_back(std::move(s));
      continue;
    }
    SiteWaits& t = into.sites[it->second];
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
