#include "stream_compressor.hpp"

#include <algorithm>

namespace mpidle::compress {

StreamCompressor::StreamCompressor(CompressorLimits limits) : m_limits(limits) {
  m_limits.chunk_symbols = std::max<std::size_t>(m_limits.chunk_symbols, 16);
  m_repair_at = m_limits.chunk_symbols;
}

void StreamCompressor::add(std::uint32_t terminal, std::int64_t ns) {
  // New terminals count against the rule limit too: streams of ever new symbols
  // must not grow the grammar between two Re-Pair passes.
  if (m_truncated || m_grammar.size() >= m_limits.max_rules) {
    m_truncated = true;
    ++m_dropped;
    return;
  }
  const Symbol s = m_grammar.terminal(terminal);
  m_grammar.timing(s).add(ns);
  ++m_events;
  push(s, ns);
  if (m_active.size() >= m_repair_at) repair();
}

std::vector<Item> StreamCompressor::finish() {
  reduce_closed_top();  // the stream ended: its last run is closed
  if (m_active.size() >= 2) repair();
  std::vector<Item> all = m_frozen;
  for (const Run& run : m_active) all.push_back({materialize(run), run.ns});
  return all;
}

void StreamCompressor::push(Symbol s, std::int64_t ns) {
  if (!m_active.empty() && m_active.back().base == s) {
    ++m_active.back().count;
    m_active.back().ns += ns;
    return;
  }
  reduce_closed_top();
  if (!m_active.empty() && m_active.back().base == s) {
    ++m_active.back().count;
    m_active.back().ns += ns;
    return;
  }
  m_active.push_back({s, 1, ns});
}

void StreamCompressor::reduce_closed_top() {
  while (m_active.size() >= 2) {
    const Run& x = m_active[m_active.size() - 2];
    const Run& y = m_active.back();
    const Symbol sx = existing_symbol(x);
    if (sx == kNoSymbol) return;
    const Symbol sy = existing_symbol(y);
    if (sy == kNoSymbol) return;
    const Symbol r = m_grammar.find_pair(sx, sy);
    if (r == kNoSymbol) return;
    // Both loops are closed now: each is one occurrence.
    if (x.count > 1) m_grammar.timing(sx).add(x.ns);
    if (y.count > 1) m_grammar.timing(sy).add(y.ns);
    const std::int64_t ns = x.ns + y.ns;
    m_grammar.timing(r).add(ns);
    m_active.resize(m_active.size() - 2);
    if (!m_active.empty() && m_active.back().base == r) {
      ++m_active.back().count;
      m_active.back().ns += ns;
    } else {
      m_active.push_back({r, 1, ns});
    }
  }
}

Symbol StreamCompressor::existing_symbol(const Run& run) const {
  return run.count == 1 ? run.base : m_grammar.find_loop(run.base, run.count);
}

Symbol StreamCompressor::materialize(const Run& run) {
  return run.count == 1 ? run.base : m_grammar.loop(run.base, run.count);
}

void StreamCompressor::repair() {
  m_window.clear();
  for (const Run& run : m_active) m_window.push_back({materialize(run), run.ns});
  m_window_compressor.compress(m_grammar, m_window);
  m_active.clear();
  for (const Item& item : m_window) {
    m_active.push_back({m_grammar.base(item.symbol), m_grammar.multiplicity(item.symbol), item.ns});
  }
  if (m_active.size() > m_limits.chunk_symbols) {
    const std::size_t cut = m_active.size() - m_limits.chunk_symbols / 2;
    for (std::size_t i = 0; i < cut; ++i) {
      m_frozen.push_back({materialize(m_active[i]), m_active[i].ns});
    }
    m_active.erase(m_active.begin(), m_active.begin() + static_cast<std::ptrdiff_t>(cut));
  }
  m_repair_at = m_active.size() + m_limits.chunk_symbols;
  if (m_frozen.size() + m_active.size() > m_limits.max_elements ||
      m_grammar.size() > m_limits.max_rules) {
    m_truncated = true;
  }
  m_peak_bytes = std::max(m_peak_bytes, memory_bytes());
}

std::size_t StreamCompressor::memory_bytes() const {
  return m_grammar.memory_bytes() + m_window_compressor.memory_bytes() +
         m_frozen.capacity() * sizeof(Item) + m_active.capacity() * sizeof(Run) +
         m_window.capacity() * sizeof(Item);
}

}  // namespace mpidle::compress
