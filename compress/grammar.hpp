#pragma once
// The rules found by compression: every symbol is a terminal (one kind of event),
// a pair A+B, or a loop A[n]. Rules are unique: asking for the same pair or loop
// twice returns the same symbol, which is what lets later parts of a stream reuse
// what earlier parts found.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "pair_map.hpp"
#include "timing.hpp"

namespace mpidle::compress {

using Symbol = std::uint32_t;
inline constexpr Symbol kNoSymbol = 0xffffffffu;

enum class RuleKind : std::uint8_t { terminal, pair, loop };

struct Rule {
  RuleKind kind = RuleKind::terminal;
  std::uint32_t a = 0;      // terminal: its id; pair: left; loop: body
  std::uint32_t b = 0;      // pair: right
  std::uint64_t count = 1;  // loop: iterations
  // Occurrences in the stream. A loop's are counted once it is closed (part of a
  // pair, or summarized); while it is the open end of the stream it may still grow.
  Timing timing;
};

class Grammar {
 public:
  Symbol terminal(std::uint32_t id);
  Symbol pair(Symbol left, Symbol right);
  Symbol loop(Symbol body, std::uint64_t iterations);
  // Lookups that make nothing: kNoSymbol when the rule does not exist.
  Symbol find_pair(Symbol left, Symbol right) const {
    return m_pair_index.find(PairMap::key(left, right), kNoSymbol);
  }
  Symbol find_loop(Symbol body, std::uint64_t iterations) const;

  const Rule& rule(Symbol s) const { return m_rules[s]; }
  Timing& timing(Symbol s) { return m_rules[s].timing; }
  std::size_t size() const { return m_rules.size(); }

  // What runs of a symbol are made of: a loop's body, else the symbol itself.
  Symbol base(Symbol s) const { return m_rules[s].kind == RuleKind::loop ? m_rules[s].a : s; }
  std::uint64_t multiplicity(Symbol s) const {
    return m_rules[s].kind == RuleKind::loop ? m_rules[s].count : 1;
  }

  std::size_t memory_bytes() const;

 private:
  std::vector<Rule> m_rules;
  std::vector<Symbol> m_terminals;  // by terminal id
  PairMap m_pair_index;             // (left, right) → pair symbol
  PairMap m_loop_index;             // (body, iterations < 2^32) → loop symbol
  struct LongLoop {
    Symbol body;
    std::uint64_t count;
    bool operator==(const LongLoop&) const = default;
  };
  struct LongLoopHash {
    std::size_t operator()(const LongLoop& k) const {
      return std::hash<std::uint64_t>()(k.count * 0x9e3779b97f4a7c15ull ^ k.body);
    }
  };
  std::unordered_map<LongLoop, Symbol, LongLoopHash> m_long_loop_index;
};

}  // namespace mpidle::compress
