#include "trace_sync.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "clock_plan.hpp"

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

// Every enter and exit a member recorded constrains what depends on it, even when
// another member's exit is missing (a non-blocking collective never completed):
// each side of the parallel replay can decide that from its own records.
void add_collective(EventGraph& g, const CollectiveMatch& c) {
  if (c.members.size() < 2) return;
  std::vector<EventRef> enters, exits;
  const CollectiveMember* root = nullptr;
  for (const auto& m : c.members) {
    if (m.has_enter) enters.push_back(enter_of(m.enter));
    if (m.has_exit) exits.push_back(exit_of(m.exit));
    if (m.rank == c.root) root = &m;
  }
  switch (c.kind) {
    case CollectiveKind::one_to_n:
      if (root && root->has_enter) g.one_to_n(enter_of(root->enter), exits);
      break;
    case CollectiveKind::n_to_one:
      if (root && root->has_exit) g.n_to_one(enters, exit_of(root->exit));
      break;
    case CollectiveKind::n_to_n:
      g.n_to_n(enters, exits);
      break;
    case CollectiveKind::scan:
    case CollectiveKind::exscan: {
      // Member n's exit (if recorded) after the enters of members 0..n (0..n−1).
      std::vector<std::optional<EventRef>> scan_exits;
      for (const auto& m : c.members) {
        if (!m.has_enter) return;  // a scan's order needs every member's enter
        scan_exits.push_back(m.has_exit ? std::optional(exit_of(m.exit)) : std::nullopt);
      }
      g.scan(enters, scan_exits, c.kind == CollectiveKind::exscan);
      break;
    }
    case CollectiveKind::none:
      break;
  }
}

// Each member exit that waits for other members (as add_collective puts it in the
// graph, and the parallel replay's hubs answer it): its time minus the latest
// enter it waits for, when not negative. A collective whose members did not all
// arrive in the trace is left out, as the replay's hub never answers it.
void note_collective_gaps(const CollectiveMatch& c, const RankTimes& t, std::int64_t& smallest) {
  if (c.members.size() < 2) return;
  auto enter = [&](const CollectiveMember& m) { return t[m.enter.rank][2 * m.enter.record]; };
  auto exit = [&](const CollectiveMember& m) { return t[m.exit.rank][2 * m.exit.record + 1]; };
  auto note = [&](const CollectiveMember& m, std::int64_t cause) {
    if (!m.has_exit) return;
    const std::int64_t gap = exit(m) - cause;
    if (gap >= 0) smallest = std::min(smallest, gap);
  };
  for (const auto& m : c.members) {
    if (!m.has_enter) return;
  }
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  switch (c.kind) {
    case CollectiveKind::n_to_n:
      for (const auto& m : c.members) latest = std::max(latest, enter(m));
      for (const auto& m : c.members) note(m, latest);
      break;
    case CollectiveKind::one_to_n:
      for (const auto& root : c.members) {
        if (root.rank != c.root) continue;
        for (const auto& m : c.members) {
          if (m.rank != c.root) note(m, enter(root));
        }
      }
      break;
    case CollectiveKind::n_to_one:
      for (const auto& m : c.members) {
        if (m.rank != c.root) latest = std::max(latest, enter(m));
      }
      for (const auto& m : c.members) {
        if (m.rank == c.root) note(m, latest);
      }
      break;
    case CollectiveKind::scan:
      // Members are in communicator order: member n waits for the enters of 0..n.
      for (const auto& m : c.members) {
        latest = std::max(latest, enter(m));
        note(m, latest);
      }
      break;
    case CollectiveKind::exscan:
      // Member n waits for the enters of 0..n−1; member 0 for nobody.
      for (const auto& m : c.members) {
        if (&m != &c.members.front()) note(m, latest);
        latest = std::max(latest, enter(m));
      }
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

bool reads_reference_clock(const model::RankTrace& r) {
  auto allows_zero = [](const model::ClockMeasurement& m) {
    return m.rtt_ns >= 0 && (m.offset_ns < 0 ? -m.offset_ns : m.offset_ns) <= m.rtt_ns / 2;
  };
  return allows_zero(r.init) && allows_zero(r.final);
}

OffsetModel offset_model_of(const model::RankTrace& r, bool raw_clocks) {
  if (raw_clocks || reads_reference_clock(r)) return OffsetModel{};
  const OffsetEstimate init{r.init.offset_ns, r.init.rtt_ns, r.init.at_ns};
  const OffsetEstimate final{r.final.offset_ns, r.final.rtt_ns, r.final.at_ns};
  return OffsetModel::from(init, final);
}

std::vector<std::int64_t> interpolated_rank_times(const model::RankTrace& r,
                                                  const OffsetModel& model) {
  std::vector<std::int64_t> t;
  t.reserve(2 * r.records.size());
  for (const auto& rec : r.records) {
    t.push_back(model.to_reference(rec.enter_ns));
    t.push_back(model.to_reference(rec.exit_ns));
  }
  return t;
}

std::vector<std::int64_t> raw_rank_times(const model::RankTrace& r) {
  std::vector<std::int64_t> t;
  t.reserve(2 * r.records.size());
  for (const auto& rec : r.records) {
    t.push_back(rec.enter_ns);
    t.push_back(rec.exit_ns);
  }
  return t;
}

RankTimes interpolated_times(const model::Trace& trace, std::vector<OffsetModel>& models,
                             bool raw_clocks) {
  RankTimes times;
  models.clear();
  for (const auto& r : trace.ranks) {
    models.push_back(offset_model_of(r, raw_clocks));
    times.push_back(interpolated_rank_times(r, models.back()));
  }
  return times;
}

TraceSyncResult synchronize_trace(model::Trace& trace, ClcParams params) {
  return synchronize_with_plan(
      [&trace](const ClcParams& p) { return synchronize_trace_once(trace, p); }, params,
      trace.min_latency_ns);
}

TraceSyncResult synchronize_trace_once(model::Trace& trace, const ClcParams& params) {
  TraceSyncResult result;
  result.params = params;
  RankTimes times = interpolated_times(trace, result.models, params.raw_clocks);
  const TraceMatching matching = match_trace(trace);
  result.messages = matching.messages.size();
  result.unmatched_sends = matching.unmatched_sends;
  result.unmatched_receives = matching.unmatched_receives;
  result.cancelled = matching.cancelled;
  const EventGraph graph = build_event_graph(trace, matching);
  RankTimes raw;
  for (const auto& r : trace.ranks) raw.push_back(raw_rank_times(r));
  result.violations_raw = count_violations(graph, raw);
  for (const auto& m : matching.messages) {
    auto gap = [&](const RankTimes& t, std::int64_t& smallest) {
      const std::int64_t g =
          t[m.receive.rank][2 * m.receive.record + 1] - t[m.send.rank][2 * m.send.record];
      if (g >= 0) smallest = std::min(smallest, g);
    };
    gap(raw, result.min_gap_raw_ns);
    gap(times, result.min_gap_corrected_ns);
  }
  for (const auto& c : matching.collectives) {
    note_collective_gaps(c, raw, result.min_gap_raw_ns);
    note_collective_gaps(c, times, result.min_gap_corrected_ns);
  }
  result.clc = synchronize(graph, times, params);
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    trace.ranks[r].synced.assign(times[r].begin(), times[r].end());
  }
  return result;
}

}  // namespace mpidle::sync
