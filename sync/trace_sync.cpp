#include "trace_sync.hpp"

#include "trace_matching.hpp"

namespace mpidle::sync {
namespace {

using model::CollectiveKind;

void add_collective(EventGraph& g, const CollectiveMatch& c) {
  if (!c.complete()) return;  // an incomplete instance constrains nothing
  std::vector<EventRef> enters, exits;
  const CollectiveMember* root = nullptr;
  for (const auto& m : c.members) {
    enters.push_back({m.enter.rank, 2 * m.enter.record});
    exits.push_back({m.exit.rank, 2 * m.exit.record + 1});
    if (m.rank == c.root) root = &m;
  }
  switch (c.kind) {
    case CollectiveKind::one_to_n:
      if (root) g.one_to_n({root->enter.rank, 2 * root->enter.record}, exits);
      break;
    case CollectiveKind::n_to_one:
      if (root) g.n_to_one(enters, {root->exit.rank, 2 * root->exit.record + 1});
      break;
    case CollectiveKind::n_to_n:
      g.n_to_n(enters, exits);
      break;
    case CollectiveKind::scan:
    case CollectiveKind::exscan:
      g.scan(enters, exits, c.kind == CollectiveKind::exscan);
      break;
    case CollectiveKind::none:
      break;
  }
}

}  // namespace

EventGraph build_event_graph(const model::Trace& trace) {
  return build_event_graph(trace, match_trace(trace));
}

EventGraph build_event_graph(const model::Trace& trace, const TraceMatching& matching) {
  std::vector<std::size_t> sizes;
  for (const auto& r : trace.ranks) sizes.push_back(2 * r.records.size());
  EventGraph g(sizes);
  for (const auto& m : matching.messages) {
    g.message({m.send.rank, 2 * m.send.record}, {m.receive.rank, 2 * m.receive.record + 1});
  }
  for (const auto& c : matching.collectives) add_collective(g, c);
  return g;
}

RankTimes interpolated_times(const model::Trace& trace, std::vector<OffsetModel>& models) {
  RankTimes times;
  models.clear();
  for (const auto& r : trace.ranks) {
    const OffsetEstimate init{r.init.offset_ns, r.init.rtt_ns, r.init.at_ns};
    const OffsetEstimate final{r.final.offset_ns, r.final.rtt_ns, r.final.at_ns};
    models.push_back(OffsetModel::from(init, final));
    auto& t = times.emplace_back();
    t.reserve(2 * r.records.size());
    for (const auto& rec : r.records) {
      t.push_back(models.back().to_reference(rec.enter_ns));
      t.push_back(models.back().to_reference(rec.exit_ns));
    }
  }
  return times;
}

TraceSyncResult synchronize_trace(model::Trace& trace, ClcParams params) {
  TraceSyncResult result;
  if (params.min_latency_ns < 0) params.min_latency_ns = trace.min_latency_ns;
  result.params = params;
  RankTimes times = interpolated_times(trace, result.models);
  const TraceMatching matching = match_trace(trace);
  result.messages = matching.messages.size();
  result.unmatched_sends = matching.unmatched_sends;
  result.unmatched_receives = matching.unmatched_receives;
  result.cancelled = matching.cancelled;
  const EventGraph graph = build_event_graph(trace, matching);
  RankTimes raw;
  for (const auto& r : trace.ranks) {
    auto& t = raw.emplace_back();
    for (const auto& rec : r.records) {
      t.push_back(rec.enter_ns);
      t.push_back(rec.exit_ns);
    }
  }
  result.violations_raw = count_violations(graph, raw);
  result.clc = synchronize(graph, times, params);
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) trace.ranks[r].synced = std::move(times[r]);
  return result;
}

}  // namespace mpidle::sync
