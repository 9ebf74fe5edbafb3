#include "summary_fold.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace mpidle::compress {
namespace {

constexpr std::uint32_t kUnnumbered = std::numeric_limits<std::uint32_t>::max();

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::uint64_t>::max()
                                                : product;
}

// Per node: the nodes its tree prints (capped just past the budget), the events
// it stands for, and how many of them are calls. Children come before parents.
struct NodeSizes {
  std::vector<std::size_t> printed;
  std::vector<std::uint64_t> events, calls;
};

NodeSizes sizes_of(const Summary& s, const std::vector<Terminal>& terminals, std::size_t cap) {
  const std::size_t n = s.nodes.size();
  NodeSizes out{std::vector<std::size_t>(n), std::vector<std::uint64_t>(n),
                std::vector<std::uint64_t>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    const SummaryNode& node = s.nodes[i];
    switch (node.kind) {
      case NodeKind::leaf:
        out.printed[i] = 1;
        out.events[i] = 1;
        out.calls[i] = node.a < terminals.size() && terminals[node.a].kind == TerminalKind::call;
        break;
      case NodeKind::pair:
        out.printed[i] = std::min(cap, 1 + out.printed[node.a] + out.printed[node.b]);
        out.events[i] = saturating_add(out.events[node.a], out.events[node.b]);
        out.calls[i] = saturating_add(out.calls[node.a], out.calls[node.b]);
        break;
      case NodeKind::loop:
        out.printed[i] = std::min(cap, 1 + out.printed[node.a]);
        out.events[i] = saturating_mul(out.events[node.a], node.iterations);
        out.calls[i] = saturating_mul(out.calls[node.a], node.iterations);
        break;
      case NodeKind::fold:
        out.printed[i] = 1;
        out.events[i] = node.events;
        out.calls[i] = node.calls;
        break;
    }
  }
  return out;
}

// Which top-level elements stay: those that stand for at least their share of the
// stream (1/budget of its events; an irregular stretch's pieces do not, so it
// folds whole), the most events per printed node first, as long as they and the
// folds between them fit the budget (at most one fold more than elements kept).
std::vector<bool> elements_kept(const Summary& s, const NodeSizes& sizes, std::size_t budget) {
  std::uint64_t total = 0;
  for (const Element& e : s.sequence) total = saturating_add(total, sizes.events[e.node]);
  const std::uint64_t share = total / budget;
  std::vector<std::size_t> order(s.sequence.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto density = [&](std::size_t e) {
    const std::uint32_t node = s.sequence[e].node;
    return static_cast<double>(sizes.events[node]) / static_cast<double>(sizes.printed[node]);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return density(x) > density(y); });
  std::vector<bool> kept(s.sequence.size(), false);
  std::size_t used = 0, count = 0;
  for (const std::size_t e : order) {
    const std::uint32_t node = s.sequence[e].node;
    const std::size_t cost = sizes.printed[node];
    // A fold already (the rest past the compressor's limits) joins the stretch
    // beside it rather than stand as a fold next to a fold.
    if (s.nodes[node].kind == NodeKind::fold || sizes.events[node] < share ||
        used + cost + count + 2 > budget) {
      continue;
    }
    kept[e] = true;
    used += cost;
    ++count;
  }
  return kept;
}

// The call symbols of a stretch of top-level elements, the most frequent first:
// each node's occurrences pushed down to its children (a parent's index is above
// its children's), counted at the leaves. `occurrences` is zero before and after.
std::vector<FoldCall> calls_of(const Summary& s, const std::vector<Terminal>& terminals,
                               std::size_t first, std::size_t last,
                               std::vector<std::uint64_t>& occurrences) {
  std::uint32_t top = 0;
  for (std::size_t e = first; e < last; ++e) {
    const std::uint32_t node = s.sequence[e].node;
    occurrences[node] = saturating_add(occurrences[node], 1);
    top = std::max(top, node);
  }
  std::map<std::uint32_t, std::uint64_t> count;
  for (std::uint64_t i = std::uint64_t{top} + 1; i-- > 0;) {
    const std::uint64_t m = occurrences[i];
    if (m == 0) continue;
    occurrences[i] = 0;
    const SummaryNode& n = s.nodes[i];
    switch (n.kind) {
      case NodeKind::leaf:
        if (n.a < terminals.size() && terminals[n.a].kind == TerminalKind::call)
          count[n.a] = saturating_add(count[n.a], m);
        break;
      case NodeKind::pair:
        occurrences[n.a] = saturating_add(occurrences[n.a], m);
        occurrences[n.b] = saturating_add(occurrences[n.b], m);
        break;
      case NodeKind::loop:
        occurrences[n.a] = saturating_add(occurrences[n.a], saturating_mul(m, n.iterations));
        break;
      case NodeKind::fold:
        for (const auto& c : n.top_calls)
          count[c.terminal] = saturating_add(count[c.terminal], saturating_mul(m, c.count));
        break;
    }
  }
  std::vector<FoldCall> calls;
  for (const auto& [terminal, n] : count) calls.push_back({terminal, n});
  return most_frequent_calls(std::move(calls));
}

// Copies the nodes of the kept elements and the folds into a new list in
// canonical order: children first, in the order a left-to-right walk meets them.
class Renumbering {
 public:
  Renumbering(const Summary& from, std::vector<SummaryNode>& to)
      : m_from(from), m_to(to), m_index(from.nodes.size(), kUnnumbered) {}

  std::uint32_t node(std::uint32_t root) {
    std::vector<std::pair<std::uint32_t, bool>> stack{{root, false}};
    while (!stack.empty()) {
      const auto [n, children_done] = stack.back();
      stack.pop_back();
      if (m_index[n] != kUnnumbered) continue;
      const SummaryNode& old = m_from.nodes[n];
      const bool has_children = old.kind == NodeKind::pair || old.kind == NodeKind::loop;
      if (has_children && !children_done) {
        stack.push_back({n, true});
        if (old.kind == NodeKind::pair) stack.push_back({old.b, false});
        stack.push_back({old.a, false});
        continue;
      }
      // (Kept elements are never folds: a fold has no parent, and elements_kept
      // does not keep one.)
      SummaryNode copy = old;
      if (has_children) copy.a = m_index[old.a];
      if (old.kind == NodeKind::pair) copy.b = m_index[old.b];
      m_index[n] = static_cast<std::uint32_t>(m_to.size());
      m_to.push_back(copy);
    }
    return m_index[root];
  }

  // One node per fold shape, as the grammar has one rule per pair or loop.
  std::uint32_t fold(SummaryNode f, std::int64_t ns) {
    auto [it, added] = m_folds.try_emplace(FoldKey{f.events, f.calls, f.top_calls},
                                           static_cast<std::uint32_t>(m_to.size()));
    if (added) m_to.push_back(std::move(f));
    m_to[it->second].timing.add(ns);
    return it->second;
  }

 private:
  const Summary& m_from;
  std::vector<SummaryNode>& m_to;
  std::vector<std::uint32_t> m_index;
  using FoldKey = std::tuple<std::uint64_t, std::uint64_t, std::vector<FoldCall>>;
  std::map<FoldKey, std::uint32_t> m_folds;
};

}  // namespace

void fold_summary(Summary& summary, const std::vector<Terminal>& terminals, std::size_t budget) {
  budget = std::max<std::size_t>(budget, 3);
  const NodeSizes sizes = sizes_of(summary, terminals, budget + 1);
  std::size_t printed = 0;
  for (const Element& e : summary.sequence) {
    printed = std::min(budget + 1, printed + sizes.printed[e.node]);
  }
  if (printed <= budget) return;

  const std::vector<bool> kept = elements_kept(summary, sizes, budget);
  std::vector<SummaryNode> nodes;
  std::vector<Element> sequence;
  Renumbering renumbering(summary, nodes);
  std::vector<std::uint64_t> occurrences(summary.nodes.size(), 0);
  SummaryNode fold;
  fold.kind = NodeKind::fold;
  std::int64_t ns = 0;
  std::size_t first = 0;  // of the open stretch
  auto close_fold = [&](std::size_t end) {
    if (first == end) return;
    fold.top_calls = calls_of(summary, terminals, first, end, occurrences);
    sequence.push_back({renumbering.fold(fold, ns), ns});
    fold.events = fold.calls = 0;
    ns = 0;
  };
  for (std::size_t e = 0; e < summary.sequence.size(); ++e) {
    const Element& element = summary.sequence[e];
    if (kept[e]) {
      close_fold(e);
      first = e + 1;
      sequence.push_back({renumbering.node(element.node), element.ns});
      continue;
    }
    fold.events = saturating_add(fold.events, sizes.events[element.node]);
    fold.calls = saturating_add(fold.calls, sizes.calls[element.node]);
    ns += element.ns;
  }
  close_fold(summary.sequence.size());
  summary.nodes = std::move(nodes);
  summary.sequence = std::move(sequence);
}

std::vector<FoldCall> most_frequent_calls(std::vector<FoldCall> calls) {
  std::stable_sort(calls.begin(), calls.end(),
                   [](const FoldCall& x, const FoldCall& y) { return x.count > y.count; });
  if (calls.size() > kFoldCallsListed) calls.resize(kFoldCallsListed);
  return calls;
}

void fold_summaries(SummarySet& set, std::size_t budget) {
  for (auto& group : set.groups) fold_summary(group.summary, set.terminals, budget);
}

}  // namespace mpidle::compress
