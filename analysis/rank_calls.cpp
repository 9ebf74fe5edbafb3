#include "rank_calls.hpp"

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

std::unordered_map<std::uint64_t, std::uint64_t> send_completions(const model::RankTrace& rank) {
  std::unordered_map<std::uint64_t, std::uint64_t> started;  // sequence -> isend record
  std::unordered_map<std::uint64_t, std::uint64_t> out;
  const auto& records = rank.records;
  std::uint64_t call = 0;
  for (std::uint64_t i = 0; i < records.size(); ++i) {
    const auto& rec = records[i];
    if (rec.extra == 0) call = i;
    if (rec.role == TraceRole::isend && rec.sequence != 0) {
      started[rec.sequence] = i;
    } else if (rec.role == TraceRole::completion && rec.collective_kind == 0) {
      auto it = started.find(rec.sequence);
      if (it == started.end()) continue;
      out[it->second] = call;
      started.erase(it);
    }
  }
  return out;
}

}  // namespace mpidle::analysis
