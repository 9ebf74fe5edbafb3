#include "window_compressor.hpp"

#include <algorithm>

namespace mpidle::compress {

void WindowCompressor::compress(Grammar& grammar, std::vector<Item>& items) {
  if (items.size() < 2) return;
  m_grammar = &grammar;
  load(items);
  collapse_all_runs();
  for (Index i = 0; i != kNone; i = m_next[i]) add_occurrence(i);
  replace_frequent_pairs();
  items.clear();
  for (Index i = 0; i != kNone; i = m_next[i]) items.push_back({m_symbol[i], m_ns[i]});
}

std::size_t WindowCompressor::memory_bytes() const {
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  return bytes(m_symbol) + bytes(m_ns) + bytes(m_prev) + bytes(m_next) + bytes(m_pair_of) +
         bytes(m_occ_prev) + bytes(m_occ_next) + bytes(m_pairs) + m_pair_index.memory_bytes() +
         bytes(m_bucket_head) + bytes(m_bucket_tail) + bytes(m_new_nodes) + bytes(m_survivors);
}

void WindowCompressor::load(const std::vector<Item>& items) {
  const std::size_t n = items.size();
  m_symbol.resize(n);
  m_ns.resize(n);
  m_prev.resize(n);
  m_next.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    m_symbol[i] = items[i].symbol;
    m_ns[i] = items[i].ns;
    m_prev[i] = static_cast<Index>(i) - 1;
    m_next[i] = i + 1 < n ? static_cast<Index>(i + 1) : kNone;
  }
  m_pair_of.assign(n, kNone);
  m_occ_prev.assign(n, kNone);
  m_occ_next.assign(n, kNone);
  m_pairs.clear();
  m_pair_index.reset(std::min<std::size_t>(n, 1 << 12));
  // A pair occurs at most n/2 times: no two of its occurrences overlap, since its
  // two symbols differ.
  m_bucket_head.assign(n / 2 + 2, kNone);
  m_bucket_tail.assign(n / 2 + 2, kNone);
  m_max_freq = 0;
}

void WindowCompressor::collapse_all_runs() {
  for (Index i = 0; i != kNone; i = m_next[i]) {
    Index last = i;
    while (m_next[last] != kNone && base_at(m_next[last]) == base_at(i)) last = m_next[last];
    if (last != i) merge_run(i, last);
  }
}

void WindowCompressor::replace_frequent_pairs() {
  for (Index p = most_frequent_pair(); p != kNone; p = most_frequent_pair()) {
    replace(p, m_grammar->pair(m_pairs[p].left, m_pairs[p].right));
  }
}

void WindowCompressor::replace(Index pair, Symbol with) {
  m_new_nodes.clear();
  while (m_pairs[pair].freq > 0) {
    const Index i = m_pairs[pair].head;
    const Index j = m_next[i];
    const Index k = m_next[j];
    if (m_prev[i] != kNone) remove_occurrence(m_prev[i]);
    remove_occurrence(i);
    remove_occurrence(j);
    close_loop(i);
    close_loop(j);
    m_symbol[i] = with;
    m_ns[i] += m_ns[j];
    m_grammar->timing(with).add(m_ns[i]);
    m_symbol[j] = kNoSymbol;
    m_next[i] = k;
    if (k != kNone) m_prev[k] = i;
    m_new_nodes.push_back(i);
  }
  collapse_runs_of_new_nodes();
  for (Index x : m_survivors) {
    if (m_prev[x] != kNone) add_occurrence(m_prev[x]);
    add_occurrence(x);
  }
}

void WindowCompressor::collapse_runs_of_new_nodes() {
  m_survivors.clear();
  for (Index x : m_new_nodes) {
    if (m_symbol[x] == kNoSymbol) continue;  // merged into a run already
    const Symbol base = base_at(x);
    Index first = x, last = x;
    while (m_prev[first] != kNone && base_at(m_prev[first]) == base) first = m_prev[first];
    while (m_next[last] != kNone && base_at(m_next[last]) == base) last = m_next[last];
    if (first != last) merge_run(first, last);
    m_survivors.push_back(first);
  }
}

void WindowCompressor::merge_run(Index first, Index last) {
  if (m_prev[first] != kNone) remove_occurrence(m_prev[first]);
  const Symbol base = base_at(first);
  std::uint64_t iterations = 0;
  std::int64_t ns = 0;
  for (Index y = first;; y = m_next[y]) {
    remove_occurrence(y);
    iterations += m_grammar->multiplicity(m_symbol[y]);
    ns += m_ns[y];
    if (y != first) m_symbol[y] = kNoSymbol;
    if (y == last) break;
  }
  m_symbol[first] = m_grammar->loop(base, iterations);
  m_ns[first] = ns;
  const Index after = m_next[last];
  m_next[first] = after;
  if (after != kNone) m_prev[after] = first;
}

void WindowCompressor::close_loop(Index i) {
  if (m_grammar->rule(m_symbol[i]).kind == RuleKind::loop)
    m_grammar->timing(m_symbol[i]).add(m_ns[i]);
}

void WindowCompressor::add_occurrence(Index left) {
  if (m_pair_of[left] != kNone) return;
  const Index right = m_next[left];
  if (right == kNone || base_at(left) == base_at(right)) return;
  const auto key = PairMap::key(m_symbol[left], m_symbol[right]);
  const auto fresh = static_cast<std::uint32_t>(m_pairs.size());
  const Index p = static_cast<Index>(m_pair_index.find_or_insert(key, fresh));
  if (static_cast<std::uint32_t>(p) == fresh) {
    PairRecord r;
    r.left = m_symbol[left];
    r.right = m_symbol[right];
    m_pairs.push_back(r);
  }
  PairRecord& r = m_pairs[p];
  m_pair_of[left] = p;
  m_occ_prev[left] = r.tail;
  m_occ_next[left] = kNone;
  if (r.tail != kNone) {
    m_occ_next[r.tail] = left;
  } else {
    r.head = left;
  }
  r.tail = left;
  if (r.freq >= 2) bucket_remove(p);
  ++m_pairs[p].freq;
  if (m_pairs[p].freq >= 2) bucket_insert(p);
}

void WindowCompressor::remove_occurrence(Index left) {
  const Index p = m_pair_of[left];
  if (p == kNone) return;
  PairRecord& r = m_pairs[p];
  const Index before = m_occ_prev[left];
  const Index after = m_occ_next[left];
  if (before != kNone) {
    m_occ_next[before] = after;
  } else {
    r.head = after;
  }
  if (after != kNone) {
    m_occ_prev[after] = before;
  } else {
    r.tail = before;
  }
  m_pair_of[left] = kNone;
  if (r.freq >= 2) bucket_remove(p);
  --r.freq;
  if (r.freq >= 2) bucket_insert(p);
}

void WindowCompressor::bucket_insert(Index p) {
  PairRecord& r = m_pairs[p];
  const std::size_t f = r.freq;
  r.bucket_prev = m_bucket_tail[f];
  r.bucket_next = kNone;
  if (m_bucket_tail[f] != kNone) {
    m_pairs[m_bucket_tail[f]].bucket_next = p;
  } else {
    m_bucket_head[f] = p;
  }
  m_bucket_tail[f] = p;
  m_max_freq = std::max(m_max_freq, f);
}

void WindowCompressor::bucket_remove(Index p) {
  PairRecord& r = m_pairs[p];
  const std::size_t f = r.freq;
  if (r.bucket_prev != kNone) {
    m_pairs[r.bucket_prev].bucket_next = r.bucket_next;
  } else {
    m_bucket_head[f] = r.bucket_next;
  }
  if (r.bucket_next != kNone) {
    m_pairs[r.bucket_next].bucket_prev = r.bucket_prev;
  } else {
    m_bucket_tail[f] = r.bucket_prev;
  }
}

WindowCompressor::Index WindowCompressor::most_frequent_pair() {
  while (m_max_freq >= 2 && m_bucket_head[m_max_freq] == kNone) --m_max_freq;
  return m_max_freq >= 2 ? m_bucket_head[m_max_freq] : kNone;
}

}  // namespace mpidle::compress
