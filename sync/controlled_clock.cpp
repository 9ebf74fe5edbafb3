#include "controlled_clock.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mpidle::sync {
namespace {

using NodeId = EventGraph::NodeId;
constexpr std::int64_t kNever = kClcNever;
constexpr std::int64_t kUnbounded = kClcUnbounded;

// Edges both ways (compressed rows), built once per run. Each row holds the
// neighbour itself, not an edge index: one memory access less per edge visited.
// `Index` is 32-bit when the graph fits (2^31 nodes, 2^32 edges), 64-bit beyond:
// the graph walk is memory-bound, and 64-bit rows cost 20 % of its speed.
template <typename Index>
struct Adjacency {
  static constexpr std::size_t kMaxNodes = std::size_t{1} << (8 * sizeof(Index) - 1);
  static constexpr std::size_t kMaxEdges = std::numeric_limits<Index>::max();
  struct Link {
    Index node : 8 * sizeof(Index) - 1;  // the cause (in rows) or the effect (out rows)
    Index message : 1;                   // the minimum latency applies
  };
  std::vector<Index> in_begin, out_begin;  // node_count + 1 entries each
  std::vector<Link> in, out;

  explicit Adjacency(const EventGraph& g) {
    const auto& edges = g.edges();
    const std::size_t n = g.node_count();
    in_begin.assign(n + 1, 0);
    out_begin.assign(n + 1, 0);
    for (const auto& e : edges) {
      ++in_begin[e.to + 1];
      ++out_begin[e.from + 1];
    }
    for (std::size_t i = 0; i < n; ++i) {
      in_begin[i + 1] += in_begin[i];
      out_begin[i + 1] += out_begin[i];
    }
    in.resize(edges.size());
    out.resize(edges.size());
    auto in_fill = in_begin, out_fill = out_begin;
    for (const auto& e : edges) {
      in[in_fill[e.to]++] = {static_cast<Index>(e.from), static_cast<Index>(e.message)};
      out[out_fill[e.from]++] = {static_cast<Index>(e.to), static_cast<Index>(e.message)};
    }
  }

  static bool fits(const EventGraph& g) {
    return g.node_count() < kMaxNodes && g.edges().size() < kMaxEdges;
  }
};

// All events' times in node order; hubs follow (their value is derived).
std::vector<std::int64_t> flatten(const EventGraph& g, const RankTimes& times) {
  std::vector<std::int64_t> flat;
  flat.reserve(g.node_count());
  for (const auto& rank : times) flat.insert(flat.end(), rank.begin(), rank.end());
  flat.resize(g.node_count(), kNever);
  return flat;
}

// Events that precede one of their causes; fills hub values on the way (hubs
// only feed hubs created after them, so id order is a topological order).
template <typename Adj>
std::uint64_t violations_in(const EventGraph& g, const Adj& adj, std::vector<std::int64_t>& flat) {
  for (NodeId h = static_cast<NodeId>(g.event_count()); h < g.node_count(); ++h) {
    std::int64_t latest = kNever;
    for (auto k = adj.in_begin[h]; k < adj.in_begin[h + 1]; ++k) {
      latest = std::max(latest, flat[adj.in[k].node]);
    }
    flat[h] = latest;
  }
  std::uint64_t violations = 0;
  for (NodeId n = 0; n < g.event_count(); ++n) {
    for (auto k = adj.in_begin[n]; k < adj.in_begin[n + 1]; ++k) {
      if (flat[n] < flat[adj.in[k].node]) {
        ++violations;
        break;
      }
    }
  }
  return violations;
}

template <typename Adj>
class ForwardPass {
 public:
  ForwardPass(const EventGraph& g, const Adj& adj, const ClcParams& p,
              const std::vector<std::int64_t>& raw, std::vector<std::int64_t>& lc,
              std::vector<std::int64_t>& jump)
      : m_g(g),
        m_adj(adj),
        m_p(p),
        m_raw(raw),
        m_lc(lc),
        m_jump(jump),
        m_pending(g.node_count(), 0),
        m_cursor(g.ranks(), 0) {
    for (const auto& e : g.edges()) ++m_pending[e.to];
  }

  // Returns the number of dependencies that had to be ignored (cycles).
  std::uint64_t run() {
    for (std::uint32_t r = 0; r < m_g.ranks(); ++r) m_ready_ranks.push_back(r);
    std::uint64_t unresolved = 0;
    for (;;) {
      drain();
      // Everything left waits on something: either all done, or a cycle in an
      // inconsistent trace. Break it at the earliest blocked event.
      std::uint32_t earliest = 0;
      std::int64_t earliest_time = kUnbounded;
      for (std::uint32_t r = 0; r < m_g.ranks(); ++r) {
        if (m_cursor[r] == m_g.events(r)) continue;
        const std::int64_t t = m_raw[m_g.first_node(r) + m_cursor[r]];
        if (t < earliest_time) {
          earliest_time = t;
          earliest = r;
        }
      }
      if (earliest_time == kUnbounded) return unresolved;
      ++unresolved;
      run_rank(earliest, true);
    }
  }

 private:
  void drain() {
    while (!m_ready_ranks.empty() || !m_ready_hubs.empty()) {
      while (!m_ready_hubs.empty()) {
        const NodeId h = m_ready_hubs.back();
        m_ready_hubs.pop_back();
        m_lc[h] = required(h);
        release(h);
      }
      if (!m_ready_ranks.empty()) {
        const std::uint32_t r = m_ready_ranks.back();
        m_ready_ranks.pop_back();
        run_rank(r, false);
      }
    }
  }

  std::int64_t required(NodeId n) const {
    std::int64_t need = kNever;
    for (auto k = m_adj.in_begin[n]; k < m_adj.in_begin[n + 1]; ++k) {
      const auto& cause = m_adj.in[k];
      need = std::max(need, m_lc[cause.node] + (cause.message ? m_p.min_latency_ns : 0));
    }
    return need;
  }

  void release(NodeId n) {
    for (auto k = m_adj.out_begin[n]; k < m_adj.out_begin[n + 1]; ++k) {
      const NodeId to = m_adj.out[k].node;
      if (--m_pending[to] != 0) continue;
      if (m_g.is_hub(to)) {
        m_ready_hubs.push_back(to);
      } else if (m_waiting_on_node.size() && m_waiting_on_node[to]) {
        m_waiting_on_node[to] = false;
        m_ready_ranks.push_back(m_waiting_rank[to]);
      }
    }
  }

  void run_rank(std::uint32_t r, bool force) {
    const std::size_t first = m_g.first_node(r);
    const std::size_t count = m_g.events(r);
    while (m_cursor[r] < count) {
      const std::size_t i = m_cursor[r];
      const NodeId n = static_cast<NodeId>(first + i);
      if (m_pending[n] != 0 && !force) {
        park(r, n);
        return;
      }
      force = false;
      const std::int64_t local_time =
          i > 0 ? clc_local_time(m_raw[n], m_raw[n - 1], m_lc[n - 1], m_p) : m_raw[n];
      const std::int64_t need = m_adj.in_begin[n] == m_adj.in_begin[n + 1] ? kNever : required(n);
      m_lc[n] = std::max(local_time, need);
      m_jump[n] = m_lc[n] - local_time;
      ++m_cursor[r];
      release(n);
    }
  }

  // Remembers which rank waits on which event, so that the event's last cause
  // wakes the rank (only events with causes can block).
  void park(std::uint32_t r, NodeId n) {
    if (m_waiting_on_node.empty()) {
      m_waiting_on_node.assign(m_g.event_count(), false);
      m_waiting_rank.assign(m_g.event_count(), 0);
    }
    m_waiting_on_node[n] = true;
    m_waiting_rank[n] = r;
  }

  const EventGraph& m_g;
  const Adj& m_adj;
  const ClcParams& m_p;
  const std::vector<std::int64_t>& m_raw;
  std::vector<std::int64_t>& m_lc;
  std::vector<std::int64_t>& m_jump;
  std::vector<std::uint32_t> m_pending;
  std::vector<std::size_t> m_cursor;
  std::vector<std::uint32_t> m_ready_ranks;
  std::vector<NodeId> m_ready_hubs;
  std::vector<bool> m_waiting_on_node;
  std::vector<std::uint32_t> m_waiting_rank;
};

// How late each cause may become without passing an effect: min over its effects
// of (effect − latency), through hubs (processed last to first).
template <typename Adj>
std::vector<std::int64_t> latest_allowed(const EventGraph& g, const Adj& adj,
                                         const std::vector<std::int64_t>& lc,
                                         std::int64_t latency) {
  std::vector<std::int64_t> bound(g.node_count(), kUnbounded);
  auto bound_of = [&](NodeId n) {
    std::int64_t b = kUnbounded;
    for (auto k = adj.out_begin[n]; k < adj.out_begin[n + 1]; ++k) {
      const auto& effect_link = adj.out[k];
      const NodeId to = effect_link.node;
      const std::int64_t effect = g.is_hub(to) ? bound[to] : lc[to];
      b = std::min(b, effect - (effect_link.message ? latency : 0));
    }
    return b;
  };
  for (std::size_t h = g.node_count(); h-- > g.event_count();)
    bound[h] = bound_of(static_cast<NodeId>(h));
  for (NodeId n = 0; n < g.event_count(); ++n) {
    if (adj.out_begin[n] != adj.out_begin[n + 1]) bound[n] = bound_of(n);
  }
  return bound;
}

void backward_amortization(const EventGraph& g, const std::vector<std::int64_t>& jump,
                           const std::vector<std::int64_t>& bound, double slope,
                           std::vector<std::int64_t>& lc) {
  std::vector<std::int64_t> shift;
  std::vector<std::pair<std::uint64_t, std::int64_t>> jumps;
  std::vector<std::uint64_t> bounded;
  std::vector<std::int64_t> latest;
  for (std::uint32_t r = 0; r < g.ranks(); ++r) {
    const std::size_t first = g.first_node(r);
    const std::size_t count = g.events(r);
    jumps.clear();
    bounded.clear();
    latest.clear();
    for (std::size_t j = 0; j < count; ++j) {
      if (jump[first + j] > 0) jumps.emplace_back(j, jump[first + j]);
      if (bound[first + j] < kUnbounded) {
        bounded.push_back(j);
        latest.push_back(bound[first + j]);
      }
    }
    amortize_rank_backward(jumps, {bounded, latest}, slope, std::span(lc).subspan(first, count),
                           shift);
  }
}

}  // namespace

void amortize_rank_backward(std::span<const std::pair<std::uint64_t, std::int64_t>> jumps,
                            CauseBounds bounds, double slope, std::span<std::int64_t> lc,
                            std::vector<std::int64_t>& shift) {
  if (slope <= 0 || jumps.empty()) return;
  const std::size_t count = lc.size();
  shift.assign(count, 0);
  bool any = false;
  for (const auto& [j, delta] : jumps) {
    // The ramp rises linearly over [start, before], before = where event j would
    // have been; a cause in the ramp may not pass its effects.
    const std::int64_t before = lc[j] - delta;
    // A gentle slope makes the ramp long; past 2^62 ns it reaches before any
    // event of an accepted trace (model::kMaxTraceTimeNs) and stays in range.
    const double ramp_ns = std::min(static_cast<double>(delta) / slope, 0x1p62);
    std::int64_t start = before - static_cast<std::int64_t>(ramp_ns);
    // The bounded events before j, walked down with i.
    std::size_t k = static_cast<std::size_t>(
        std::lower_bound(bounds.events.begin(), bounds.events.end(), j) - bounds.events.begin());
    for (std::size_t i = j; i-- > 0 && lc[i] > start;) {
      while (k > 0 && bounds.events[k - 1] > i) --k;
      if (k == 0 || bounds.events[k - 1] != i) continue;  // unbounded: no limit
      const std::int64_t slack = bounds.latest[k - 1] - lc[i];
      if (slack >= delta) continue;
      const double s = static_cast<double>(std::max<std::int64_t>(slack, 0));
      const double d = static_cast<double>(delta);
      // delta·(L − T)/(B − T) ≤ slack  ⇔  T ≥ (delta·L − slack·B)/(delta − slack)
      const double limit =
          (d * static_cast<double>(lc[i]) - s * static_cast<double>(before)) / (d - s);
      // Past `before` the ramp is empty either way, and below `start` the limit does
      // not bind (a corrupted trace put it at -3.8e19): cast only in between.
      const double upper = std::min(std::ceil(limit), static_cast<double>(before));
      if (upper > static_cast<double>(start)) start = static_cast<std::int64_t>(upper);
    }
    if (start >= before) continue;
    const double per_ns = static_cast<double>(delta) / static_cast<double>(before - start);
    for (std::size_t i = j; i-- > 0 && lc[i] > start;) {
      // An event at or past `before` takes the whole jump, never more.
      const auto ramp = static_cast<std::int64_t>(
          std::min(per_ns * static_cast<double>(lc[i] - start), static_cast<double>(delta)));
      shift[i] = std::max(shift[i], ramp);
      any = true;
    }
  }
  if (!any) return;
  for (std::size_t i = 0; i < count; ++i) lc[i] += shift[i];
}

template <typename Index>
ClcStats synchronize_indexed(const EventGraph& g, RankTimes& times, const ClcParams& p) {
  ClcStats stats;
  const Adjacency<Index> adj(g);
  const std::vector<std::int64_t> raw = [&] {
    auto flat = flatten(g, times);
    stats.violations_before = violations_in(g, adj, flat);
    return flat;
  }();
  std::vector<std::int64_t> lc(g.node_count(), kNever);
  {
    std::vector<std::int64_t> jump(g.event_count(), 0);
    stats.unresolved = ForwardPass<Adjacency<Index>>(g, adj, p, raw, lc, jump).run();
    const auto bound = latest_allowed(g, adj, lc, p.min_latency_ns);
    backward_amortization(g, jump, bound, p.backward_slope, lc);
  }

  double shift_sum = 0, interval_change_sum = 0;
  std::uint64_t intervals = 0;
  for (std::uint32_t r = 0; r < g.ranks(); ++r) {
    const std::size_t first = g.first_node(r);
    auto& local = times[r];
    for (std::size_t i = 0; i < local.size(); ++i) {
      const std::int64_t shift = lc[first + i] - raw[first + i];
      stats.events_moved += shift != 0;
      stats.max_shift_ns = std::max(stats.max_shift_ns, shift);
      shift_sum += static_cast<double>(shift);
      if (i > 0) {
        const std::int64_t old_interval = raw[first + i] - raw[first + i - 1];
        const std::int64_t new_interval = lc[first + i] - lc[first + i - 1];
        interval_change_sum += std::abs(static_cast<double>(new_interval - old_interval));
        ++intervals;
      }
      local[i] = lc[first + i];
    }
  }
  const std::size_t events = g.event_count();
  stats.mean_shift_ns = events ? shift_sum / static_cast<double>(events) : 0;
  stats.interval_change_mean_ns =
      intervals ? interval_change_sum / static_cast<double>(intervals) : 0;
  stats.violations_after = violations_in(g, adj, lc);
  return stats;
}

template ClcStats synchronize_indexed<std::uint32_t>(const EventGraph&, RankTimes&,
                                                     const ClcParams&);
template ClcStats synchronize_indexed<std::uint64_t>(const EventGraph&, RankTimes&,
                                                     const ClcParams&);

std::uint64_t count_violations(const EventGraph& g, const RankTimes& times) {
  auto flat = flatten(g, times);
  if (Adjacency<std::uint32_t>::fits(g)) return violations_in(g, Adjacency<std::uint32_t>(g), flat);
  return violations_in(g, Adjacency<std::uint64_t>(g), flat);
}

ClcStats synchronize(const EventGraph& g, RankTimes& times, const ClcParams& p) {
  if (Adjacency<std::uint32_t>::fits(g)) return synchronize_indexed<std::uint32_t>(g, times, p);
  return synchronize_indexed<std::uint64_t>(g, times, p);
}

}  // namespace mpidle::sync
