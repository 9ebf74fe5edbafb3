#include "trace_sync.hpp"

#include "trace_matching.hpp"

namespace mpidle::sync {
namespace {

using model::CollectiveKind;

// A record's enter (2i) or exit (2i + 1) event.
EventRef enter_of(RecordRef r) {
  return {static_cast<std::uint32_t>(r.rank), 2 * r.record};
}
EventRef exit_of(RecordRef r) {
  return {static_cast<std::uint32_t>(r.rank), 2 * r.record + 1};
}

void add_collective(EventGraph& g, const CollectiveMatch& c) {
  if (!c.complete()) return;  // an incomplete instance constrains nothing
  std::vector<EventRef> enters, exits;
  const CollectiveMember* root = nullptr;
  for (const auto& m : c.members) {
    enters.push_back(enter_of(m.enter));
    exits.push_back(exit_of(m.exit));
    if (m.rank == c.root) root = &m;
  }
  switch (c.kind) {
    case CollectiveKind::one_to_n:
      if (root) g.one_to_n(enter_of(root->enter), exits);
      break;
    case CollectiveKind::n_to_one:
      if (root) g.n_to_one(enters, exit_of(root->exit));
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
    g.message(enter_of(m.send), exit_of(m.receive));
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
