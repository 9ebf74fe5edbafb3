#include "summary.hpp"

#include <unordered_map>

namespace mpidle::compress {
namespace {

// Post-order numbering without recursion: pair chains can be thousands deep.
class Numbering {
 public:
  Numbering(const Grammar& grammar, Summary& out) : m_grammar(grammar), m_out(out) {}

  std::uint32_t number(Symbol root) {
    if (auto it = m_index.find(root); it != m_index.end()) return it->second;
    std::vector<std::pair<Symbol, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [s, children_done] = stack.back();
      stack.pop_back();
      if (m_index.count(s)) continue;
      const Rule& r = m_grammar.rule(s);
      if (!children_done && r.kind != RuleKind::terminal) {
        stack.push_back({s, true});
        if (r.kind == RuleKind::pair) stack.push_back({r.b, false});
        stack.push_back({r.a, false});
        continue;
      }
      SummaryNode node;
      node.timing = r.timing;
      switch (r.kind) {
        case RuleKind::terminal:
          node.kind = NodeKind::leaf;
          node.a = r.a;
          break;
        case RuleKind::pair:
          node.kind = NodeKind::pair;
          node.a = m_index.at(r.a);
          node.b = m_index.at(r.b);
          break;
        case RuleKind::loop:
          node.kind = NodeKind::loop;
          node.a = m_index.at(r.a);
          node.iterations = r.count;
          break;
      }
      m_index[s] = static_cast<std::uint32_t>(m_out.nodes.size());
      m_out.nodes.push_back(node);
    }
    return m_index.at(root);
  }

 private:
  const Grammar& m_grammar;
  Summary& m_out;
  std::unordered_map<Symbol, std::uint32_t> m_index;
};

void expand_node(const Summary& s, std::uint32_t n, std::vector<std::uint32_t>& out) {
  const SummaryNode& node = s.nodes[n];
  switch (node.kind) {
    case NodeKind::leaf:
      out.push_back(node.a);
      break;
    case NodeKind::pair:
      expand_node(s, node.a, out);
      expand_node(s, node.b, out);
      break;
    case NodeKind::loop:
      for (std::uint64_t i = 0; i < node.iterations; ++i) expand_node(s, node.a, out);
      break;
    case NodeKind::fold:
      break;
  }
}

}  // namespace

Summary summarize(StreamCompressor& compressor) {
  const std::vector<Item> sequence = compressor.finish();
  Summary out;
  Numbering numbering(compressor.grammar(), out);
  for (const Item& item : sequence) {
    const std::uint32_t node = numbering.number(item.symbol);
    out.sequence.push_back({node, item.ns});
    // A loop at the top level is closed only now.
    if (out.nodes[node].kind == NodeKind::loop) out.nodes[node].timing.add(item.ns);
  }
  out.events = compressor.events();
  out.dropped_events = compressor.dropped_events();
  out.truncated = compressor.truncated();
  return out;
}

std::vector<std::uint32_t> expand(const Summary& summary) {
  std::vector<std::uint32_t> out;
  for (const Element& e : summary.sequence) expand_node(summary, e.node, out);
  return out;
}

namespace {
// Children come before parents, so one forward pass fills every length.
std::vector<std::uint64_t> lengths_up_to(const Summary& summary, std::size_t count) {
  std::vector<std::uint64_t> length(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const SummaryNode& n = summary.nodes[i];
    length[i] = n.kind == NodeKind::leaf   ? 1
                : n.kind == NodeKind::pair ? length[n.a] + length[n.b]
                : n.kind == NodeKind::fold ? n.events
                                           : length[n.a] * n.iterations;
  }
  return length;
}
}  // namespace

std::uint64_t expanded_length(const Summary& summary, std::uint32_t node) {
  return lengths_up_to(summary, std::size_t{node} + 1)[node];
}

std::vector<std::uint64_t> expanded_lengths(const Summary& summary) {
  return lengths_up_to(summary, summary.nodes.size());
}

bool same_structure(const Summary& a, const Summary& b) {
  if (a.nodes.size() != b.nodes.size() || a.sequence.size() != b.sequence.size() ||
      a.truncated != b.truncated || a.events != b.events) {
    return false;
  }
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    if (!a.nodes[i].same_shape(b.nodes[i])) return false;
  }
  for (std::size_t i = 0; i < a.sequence.size(); ++i) {
    if (a.sequence[i].node != b.sequence[i].node) return false;
  }
  return true;
}

std::uint64_t structure_hash(const Summary& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  for (const auto& n : s.nodes) {
    mix(static_cast<std::uint64_t>(n.kind));
    mix(n.a);
    mix(n.b);
    mix(n.iterations);
    mix(n.events);
    mix(n.calls);
    for (const auto& c : n.top_calls) mix(c.terminal * 0x9e3779b97f4a7c15ull ^ c.count);
  }
  for (const auto& e : s.sequence) mix(e.node);
  mix(s.events);
  return h;
}

void add_timings(Summary& into, const Summary& from) {
  for (std::size_t i = 0; i < into.nodes.size(); ++i)
    into.nodes[i].timing.merge(from.nodes[i].timing);
  for (std::size_t i = 0; i < into.sequence.size(); ++i) into.sequence[i].ns += from.sequence[i].ns;
  into.dropped_events += from.dropped_events;
}

}  // namespace mpidle::compress
