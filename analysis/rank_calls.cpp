#include "rank_calls.hpp"

#include <algorithm>
#include <map>

namespace mpidle::analysis {

using model::TraceRole;

std::vector<std::pair<std::uint64_t, std::uint64_t>> probe_receives(const model::Trace& tables,
                                                                    const model::RankTrace& rank) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::vector<std::uint8_t> blocking_probe(tables.functions.size(), 0);
  for (std::size_t f = 0; f < tables.functions.size(); ++f) {
    blocking_probe[f] = tables.functions[f] == "MPI_Probe" || tables.functions[f] == "MPI_Mprobe";
  }
  // Probes waiting for their sender's next receive, by sender.
  std::map<std::int32_t, std::vector<std::uint64_t>> pending;
  const auto& records = rank.records;
  for (std::uint64_t i = 0; i < records.size(); ++i) {
    const auto& rec = records[i];
    if (rec.extra != 0) continue;
    if (rec.function < blocking_probe.size() && blocking_probe[rec.function] && rec.peer >= 0) {
      pending[rec.peer].push_back(i);
    } else if ((rec.role == TraceRole::recv || rec.role == TraceRole::irecv) && rec.peer >= 0) {
      auto it = pending.find(rec.peer);
      if (it == pending.end()) continue;
      for (const std::uint64_t probe : it->second) out.emplace_back(probe, i);
      pending.erase(it);
    }
  }
  return out;
}

SendCompletions send_completions(const model::RankTrace& rank) {
  // The rank's completion records as (request serial, record, first record of the
  // call), sorted: a serial completes after it started, so an isend's completion is
  // the first of its serial after it.
  struct Completion {
    std::uint64_t serial, record, call;
    bool operator<(const Completion& o) const {
      return serial != o.serial ? serial < o.serial : record < o.record;
    }
  };
  model::LargeArray<Completion> done;
  const auto& records = rank.records;
  std::uint64_t call = 0;
  for (std::uint64_t i = 0; i < records.size(); ++i) {
    const auto& rec = records[i];
    if (rec.extra == 0) call = i;
    if (rec.role == TraceRole::completion && rec.collective_kind == 0)
      done.push_back({rec.sequence, i, call});
  }
  SendCompletions out;
  if (done.empty()) return out;
  std::sort(done.begin(), done.end());
  for (std::uint64_t i = 0; i < records.size(); ++i) {
    const auto& rec = records[i];
    if (rec.role != TraceRole::isend || rec.sequence == 0) continue;
    auto it = std::lower_bound(done.begin(), done.end(), Completion{rec.sequence, i, 0});
    if (it != done.end() && it->serial == rec.sequence) out.emplace_back(i, it->call);
  }
  return out;
}

std::optional<std::uint64_t> completing_call(const SendCompletions& completions,
                                             std::uint64_t record) {
  auto it = std::lower_bound(completions.begin(), completions.end(),
                             std::pair<std::uint64_t, std::uint64_t>{record, 0});
  if (it == completions.end() || it->first != record) return std::nullopt;
  return it->second;
}

}  // namespace mpidle::analysis
