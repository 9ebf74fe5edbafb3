#include "collective_cost.hpp"

#include <algorithm>
#include <cmath>

#include "nanoseconds.hpp"

namespace mpidle::analysis {

using model::CollectiveKind;

CollectiveCost collective_cost(const model::Trace& trace, const sync::CollectiveMatch& match,
                               const model::CollectiveModel* model) {
  const auto& first = match.members[0].enter;
  const model::TraceRecord& rec = trace.ranks[first.rank].records[first.record];
  CollectiveCost c;
  if (model) {
    const int size = static_cast<int>(match.members.size());
    c.ns = to_ns(model->at(size, rec.bytes));
    c.latency_ns = std::min(c.ns, to_ns(model->at(size, 0)));
    return c;
  }
  c.ns = std::numeric_limits<std::int64_t>::max();
  for (const auto& m : match.members) {
    const auto& rank = trace.ranks[m.enter.rank];
    const auto& exit_rank = trace.ranks[m.exit.rank];
    c.ns =
        std::min(c.ns, exit_rank.synced[2 * m.exit.record + 1] - rank.synced[2 * m.enter.record]);
  }
  c.ns = std::max<std::int64_t>(0, c.ns);
  c.latency_ns = c.ns;
  return c;
}

std::optional<std::int64_t> collective_exit(const sync::CollectiveMatch& match, std::size_t k,
                                            const std::vector<std::int64_t>& enters,
                                            std::int64_t cost_ns) {
  std::size_t root = enters.size();
  for (std::size_t j = 0; j < match.members.size(); ++j) {
    if (match.members[j].rank == match.root) root = j;
  }
  auto kind = match.kind;
  if (root == enters.size() &&
      (kind == CollectiveKind::one_to_n || kind == CollectiveKind::n_to_one)) {
    kind = CollectiveKind::n_to_n;  // a root outside the members constrains nothing known
  }
  const std::int64_t own = enters[k];
  if (own == kUnknownTime) return std::nullopt;
  // The latest enter of members [0, end), or nothing while one of them is unknown.
  auto latest = [&](std::size_t end) -> std::optional<std::int64_t> {
    std::int64_t t = kUnknownTime;
    for (std::size_t j = 0; j < end; ++j) {
      if (enters[j] == kUnknownTime) return std::nullopt;
      t = std::max(t, enters[j]);
    }
    return t;
  };
  std::optional<std::int64_t> after;
  switch (kind) {
    case CollectiveKind::one_to_n:
      if (k == root) return own + cost_ns;
      if (enters[root] == kUnknownTime) return std::nullopt;
      return std::max(own, enters[root]) + cost_ns;
    case CollectiveKind::n_to_one:
      if (k != root) return own + cost_ns;
      after = latest(enters.size());
      break;
    case CollectiveKind::scan:
      after = latest(k + 1);
      break;
    case CollectiveKind::exscan:
      after = latest(k);
      break;
    default:
      after = latest(enters.size());
      break;
  }
  if (!after) return std::nullopt;
  return std::max(own, *after) + cost_ns;
}

}  // namespace mpidle::analysis
