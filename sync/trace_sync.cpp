#include "trace_sync.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace mpidle::sync {
namespace {

using model::CollectiveKind;
using model::TraceRecord;
using model::TraceRole;

// (communicator, source, destination, tag): MPI's non-overtaking order holds per key.
using ChannelKey = std::tuple<std::uint32_t, std::int32_t, std::int32_t, std::int32_t>;

struct Receive {
  std::uint64_t posted;  // the receive's posting position on its rank
  EventRef event;
};

struct CollectiveMember {
  std::int32_t rank = -1;
  std::int32_t order = 0;  // scan: rank in the communicator
  EventRef enter{};
  EventRef exit{};
  bool has_enter = false, has_exit = false;
};

struct CollectiveInstance {
  CollectiveKind kind = CollectiveKind::none;
  std::int32_t root = model::kTraceNoRoot;
  std::vector<CollectiveMember> members;
};

CollectiveMember& member_of(CollectiveInstance& c, std::int32_t rank) {
  for (auto& m : c.members) {
    if (m.rank == rank) return m;
  }
  c.members.push_back(CollectiveMember{rank});
  return c.members.back();
}

void add_collective(EventGraph& g, CollectiveInstance& c) {
  std::vector<EventRef> enters, exits;
  const CollectiveMember* root = nullptr;
  std::sort(c.members.begin(), c.members.end(),
            [](const auto& a, const auto& b) { return a.order < b.order; });
  for (const auto& m : c.members) {
    if (!m.has_enter || !m.has_exit) return;  // incomplete instance: no constraint
    enters.push_back(m.enter);
    exits.push_back(m.exit);
    if (m.rank == c.root) root = &m;
  }
  if (c.members.size() < 2) return;
  switch (c.kind) {
    case CollectiveKind::one_to_n:
      if (root) g.one_to_n(root->enter, exits);
      break;
    case CollectiveKind::n_to_one:
      if (root) g.n_to_one(enters, root->exit);
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
  std::vector<std::size_t> sizes;
  for (const auto& r : trace.ranks) sizes.push_back(2 * r.records.size());
  EventGraph g(sizes);

  std::map<ChannelKey, std::vector<EventRef>> sends;
  std::map<ChannelKey, std::vector<Receive>> receives;
  std::map<std::pair<std::uint32_t, std::uint32_t>, CollectiveInstance> collectives;

  for (std::uint32_t ri = 0; ri < trace.ranks.size(); ++ri) {
    const auto& rank = trace.ranks[ri];
    const std::int32_t me = rank.rank;
    std::unordered_map<std::uint32_t, std::uint64_t> posted_irecv;  // request serial → record
    std::uint32_t call = 0;  // the record of the call this record belongs to
    for (std::uint32_t i = 0; i < rank.records.size(); ++i) {
      const TraceRecord& rec = rank.records[i];
      if (rec.extra == 0) call = i;
      const EventRef enter{ri, 2 * i}, exit{ri, 2 * i + 1};
      switch (rec.role) {
        case TraceRole::send:
        case TraceRole::isend:
          // A send is at the enter of its call. For the send half of a Sendrecv
          // (a further record, after the receive's exit in the rank's order) that
          // is the call's own enter: taking the further record's would put the
          // send after the receive and make every exchange a cycle.
          if (rec.peer >= 0) {
            sends[{rec.comm, me, rec.peer, rec.tag}].push_back(EventRef{ri, 2 * call});
          }
          break;
        case TraceRole::recv:
          if (rec.peer >= 0) receives[{rec.comm, rec.peer, me, rec.tag}].push_back({i, exit});
          break;
        case TraceRole::irecv:
          posted_irecv[rec.sequence] = i;
          break;
        case TraceRole::completion:
          if (rec.collective_kind != 0) {
            auto& c = collectives[{rec.comm, rec.sequence}];
            auto& m = member_of(c, me);
            m.exit = exit;
            m.has_exit = true;
          } else if (auto it = posted_irecv.find(rec.sequence); it != posted_irecv.end()) {
            if (rec.peer >= 0) {
              receives[{rec.comm, rec.peer, me, rec.tag}].push_back({it->second, exit});
            }
            posted_irecv.erase(it);
          }
          break;
        case TraceRole::collective:
        case TraceRole::icollective: {
          auto& c = collectives[{rec.comm, rec.sequence}];
          c.kind = static_cast<CollectiveKind>(rec.collective_kind);
          auto& m = member_of(c, me);
          if (c.kind == CollectiveKind::scan || c.kind == CollectiveKind::exscan) {
            m.order = rec.root;  // scans carry the caller's rank in the communicator
          } else {
            c.root = rec.root;
            m.order = me;
          }
          m.enter = enter;
          m.has_enter = true;
          if (rec.role == TraceRole::collective) {
            m.exit = exit;
            m.has_exit = true;
          }
          break;
        }
        case TraceRole::other:
          break;
      }
    }
  }

  for (auto& [key, recvs] : receives) {
    auto it = sends.find(key);
    if (it == sends.end()) continue;
    std::stable_sort(recvs.begin(), recvs.end(),
                     [](const Receive& a, const Receive& b) { return a.posted < b.posted; });
    const std::size_t n = std::min(recvs.size(), it->second.size());
    for (std::size_t k = 0; k < n; ++k) g.message(it->second[k], recvs[k].event);
  }
  for (auto& [key, instance] : collectives) add_collective(g, instance);
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
  const EventGraph graph = build_event_graph(trace);
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
