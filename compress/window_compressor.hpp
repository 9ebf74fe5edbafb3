#pragma once
// Run-length + pair replacement over one window of symbols, in time linear in the
// window (Re-Pair: a doubly linked sequence, per-pair occurrence lists and
// frequency buckets, all updated incrementally).
//
// Order of work: runs collapse (A A A → A[3], A[2] A → A[3]); then, while some
// adjacent pair occurs at least twice, the most frequent becomes a symbol A+B
// (an existing one if the grammar has it) and the runs it forms collapse. Among
// equally frequent pairs the one that reached that frequency first is taken,
// which makes the result a function of the input.

#include <cstdint>
#include <vector>

#include "grammar.hpp"
#include "pair_map.hpp"

namespace mpidle::compress {

// One element of a sequence: a symbol and the duration of this occurrence.
struct Item {
  Symbol symbol = kNoSymbol;
  std::int64_t ns = 0;
};

class WindowCompressor {
 public:
  // Replaces `items` by their compressed sequence; new rules go into `grammar`.
  // Every pair formed, and every loop that becomes part of one, gets this
  // occurrence's duration in its timing; loops left in the sequence do not.
  void compress(Grammar& grammar, std::vector<Item>& items);

  std::size_t memory_bytes() const;

 private:
  using Index = std::int32_t;
  static constexpr Index kNone = -1;

  struct PairRecord {
    Symbol left = 0;
    Symbol right = 0;
    std::uint32_t freq = 0;
    Index head = kNone;  // occurrences, by their left node
    Index tail = kNone;
    Index bucket_prev = kNone;
    Index bucket_next = kNone;
  };

  void load(const std::vector<Item>& items);
  void collapse_all_runs();
  void replace_frequent_pairs();
  void replace(Index pair, Symbol with);
  void collapse_runs_of_new_nodes();
  void merge_run(Index first, Index last);
  void close_loop(Index i);  // a loop node becomes part of a pair: one occurrence
  void add_occurrence(Index left);
  void remove_occurrence(Index left);
  void bucket_insert(Index pair);
  void bucket_remove(Index pair);
  Index most_frequent_pair();
  Symbol base_at(Index i) const { return m_grammar->base(m_symbol[i]); }

  Grammar* m_grammar = nullptr;
  // The sequence, one slot per input item; dead slots hold kNoSymbol.
  std::vector<Symbol> m_symbol;
  std::vector<std::int64_t> m_ns;
  std::vector<Index> m_prev, m_next;
  // Occurrence (i, next[i]): its pair record and links in that record's list.
  std::vector<Index> m_pair_of, m_occ_prev, m_occ_next;
  std::vector<PairRecord> m_pairs;
  PairMap m_pair_index;
  std::vector<Index> m_bucket_head, m_bucket_tail;  // by frequency, ≥ 2 only
  std::size_t m_max_freq = 0;
  std::vector<Index> m_new_nodes, m_survivors;
};

}  // namespace mpidle::compress
