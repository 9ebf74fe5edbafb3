#include "summary_codec.hpp"

#include "model/byte_stream.hpp"

namespace mpidle::compress {
namespace {

constexpr std::uint64_t kMagic = 0x324d555344494d50ull;  // "PMIDSUM2", little-endian

void put_timing(model::ByteWriter& w, const Timing& t) {
  w.put(t.count);
  w.put(t.total_ns);
  w.put(t.min_ns);
  w.put(t.max_ns);
}

bool get_timing(model::ByteReader& r, Timing& t) {
  return r.get(t.count) && r.get(t.total_ns) && r.get(t.min_ns) && r.get(t.max_ns);
}

bool get_summary(model::ByteReader& r, std::size_t terminals, Summary& s) {
  std::uint64_t nodes = 0;
  std::uint8_t truncated = 0;
  if (!r.get(s.events) || !r.get(s.dropped_events) || !r.get(truncated) || !r.get(nodes) ||
      !r.can_hold(nodes, 1 + 4 + 4 + 8 + 32)) {
    return false;
  }
  s.truncated = truncated != 0;
  s.nodes.resize(nodes);
  for (std::uint64_t i = 0; i < nodes; ++i) {
    SummaryNode& n = s.nodes[i];
    std::uint8_t kind = 0;
    if (!r.get(kind) || !r.get(n.a) || !r.get(n.b) || !r.get(n.iterations) ||
        !get_timing(r, n.timing) || kind > 3) {
      return false;
    }
    n.kind = static_cast<NodeKind>(kind);
    if (n.kind == NodeKind::fold) {
      std::uint64_t listed = 0;
      if (!r.get(n.events) || !r.get(n.calls) || !r.get(listed) || listed > kFoldCallsListed) {
        return false;
      }
      n.top_calls.resize(listed);
      for (auto& c : n.top_calls) {
        if (!r.get(c.terminal) || !r.get(c.count) || c.terminal >= terminals) return false;
      }
    }
    // Children before parents, leaves within the terminal table.
    const bool ok = n.kind == NodeKind::leaf   ? n.a < terminals
                    : n.kind == NodeKind::pair ? n.a < i && n.b < i
                    : n.kind == NodeKind::loop ? n.a < i
                                               : n.calls <= n.events;
    if (!ok) return false;
  }
  std::uint64_t elements = 0;
  if (!r.get(elements) || !r.can_hold(elements, 12)) return false;
  s.sequence.resize(elements);
  for (auto& e : s.sequence) {
    if (!r.get(e.node) || !r.get(e.ns) || e.node >= nodes) return false;
  }
  return true;
}

}  // namespace

std::string encode_summary_set(const SummarySet& set) {
  model::ByteWriter w;
  w.put(kMagic);
  w.put<std::uint8_t>((set.symbols.peer ? 1 : 0) | (set.symbols.size ? 2 : 0));
  w.put<std::uint64_t>(set.terminals.size());
  for (const auto& t : set.terminals) {
    w.put(static_cast<std::uint8_t>(t.kind));
    w.put_string(t.function);
    w.put(t.peer);
    w.put(t.size_class);
    w.put<std::uint64_t>(t.callsite.frames.size());
    for (const auto& f : t.callsite.frames) {
      w.put_string(f.module);
      w.put(f.offset);
      w.put_string(f.function);
      w.put_string(f.file);
      w.put(f.line);
    }
  }
  w.put<std::uint64_t>(set.groups.size());
  for (const auto& g : set.groups) {
    w.put<std::uint64_t>(g.ranks.size());
    for (auto rank : g.ranks) w.put(rank);
    const Summary& s = g.summary;
    w.put(s.events);
    w.put(s.dropped_events);
    w.put<std::uint8_t>(s.truncated ? 1 : 0);
    w.put<std::uint64_t>(s.nodes.size());
    for (const auto& n : s.nodes) {
      w.put(static_cast<std::uint8_t>(n.kind));
      w.put(n.a);
      w.put(n.b);
      w.put(n.iterations);
      put_timing(w, n.timing);
      if (n.kind == NodeKind::fold) {
        w.put(n.events);
        w.put(n.calls);
        w.put<std::uint64_t>(n.top_calls.size());
        for (const auto& c : n.top_calls) {
          w.put(c.terminal);
          w.put(c.count);
        }
      }
    }
    w.put<std::uint64_t>(s.sequence.size());
    for (const auto& e : s.sequence) {
      w.put(e.node);
      w.put(e.ns);
    }
  }
  w.put(set.omitted.groups);
  w.put(set.omitted.ranks);
  w.put(set.omitted.events);
  const auto bytes = w.take();
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::optional<SummarySet> decode_summary_set(const std::string& bytes) {
  model::ByteReader r(std::as_bytes(std::span(bytes.data(), bytes.size())));
  SummarySet set;
  std::uint64_t magic = 0, terminals = 0, groups = 0;
  std::uint8_t symbols = 0;
  if (!r.get(magic) || magic != kMagic || !r.get(symbols) || !r.get(terminals) ||
      !r.can_hold(terminals, 1 + 4 + 4 + 4 + 8)) {
    return std::nullopt;
  }
  set.symbols = {(symbols & 1) != 0, (symbols & 2) != 0};
  set.terminals.resize(terminals);
  for (auto& t : set.terminals) {
    std::uint8_t kind = 0;
    std::uint64_t frames = 0;
    if (!r.get(kind) || kind > 1 || !r.get_string(t.function) || !r.get(t.peer) ||
        !r.get(t.size_class) || !r.get(frames) || !r.can_hold(frames, 24)) {
      return std::nullopt;
    }
    t.kind = static_cast<TerminalKind>(kind);
    t.callsite.frames.resize(frames);
    for (auto& f : t.callsite.frames) {
      if (!r.get_string(f.module) || !r.get(f.offset) || !r.get_string(f.function) ||
          !r.get_string(f.file) || !r.get(f.line)) {
        return std::nullopt;
      }
    }
  }
  if (!r.get(groups) || !r.can_hold(groups, 8 + 8 + 8 + 1 + 8 + 8)) return std::nullopt;
  set.groups.resize(groups);
  for (auto& g : set.groups) {
    std::uint64_t ranks = 0;
    if (!r.get(ranks) || !r.can_hold(ranks, 4)) return std::nullopt;
    g.ranks.resize(ranks);
    for (auto& rank : g.ranks) {
      if (!r.get(rank)) return std::nullopt;
    }
    if (!get_summary(r, set.terminals.size(), g.summary)) return std::nullopt;
  }
  if (!r.get(set.omitted.groups) || !r.get(set.omitted.ranks) || !r.get(set.omitted.events) ||
      !r.at_end()) {
    return std::nullopt;
  }
  return set;
}

}  // namespace mpidle::compress
