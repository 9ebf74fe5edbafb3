#include "grammar.hpp"

namespace mpidle::compress {
namespace {

constexpr std::uint64_t kShortLoop = 0xffffffffull;

}  // namespace

Symbol Grammar::terminal(std::uint32_t id) {
  if (id >= m_terminals.size()) m_terminals.resize(id + 1, kNoSymbol);
  Symbol& s = m_terminals[id];
  if (s == kNoSymbol) {
    s = static_cast<Symbol>(m_rules.size());
    Rule r;
    r.a = id;
    m_rules.push_back(r);
  }
  return s;
}

Symbol Grammar::pair(Symbol left, Symbol right) {
  const auto fresh = static_cast<Symbol>(m_rules.size());
  const Symbol s = m_pair_index.find_or_insert(PairMap::key(left, right), fresh);
  if (s == fresh) {
    Rule r;
    r.kind = RuleKind::pair;
    r.a = left;
    r.b = right;
    m_rules.push_back(r);
  }
  return s;
}

Symbol Grammar::loop(Symbol body, std::uint64_t iterations) {
  const auto fresh = static_cast<Symbol>(m_rules.size());
  Symbol s = fresh;
  if (iterations < kShortLoop) {
    s = m_loop_index.find_or_insert(PairMap::key(body, static_cast<std::uint32_t>(iterations)),
                                    fresh);
  } else {
    s = m_long_loop_index.try_emplace(LongLoop{body, iterations}, fresh).first->second;
  }
  if (s == fresh) {
    Rule r;
    r.kind = RuleKind::loop;
    r.a = body;
    r.count = iterations;
    m_rules.push_back(r);
  }
  return s;
}

Symbol Grammar::find_loop(Symbol body, std::uint64_t iterations) const {
  if (iterations < kShortLoop) {
    return m_loop_index.find(PairMap::key(body, static_cast<std::uint32_t>(iterations)), kNoSymbol);
  }
  auto it = m_long_loop_index.find(LongLoop{body, iterations});
  return it == m_long_loop_index.end() ? kNoSymbol : it->second;
}

std::size_t Grammar::memory_bytes() const {
  return m_rules.capacity() * sizeof(Rule) + m_terminals.capacity() * sizeof(Symbol) +
         m_pair_index.memory_bytes() + m_loop_index.memory_bytes() + m_long_loop_index.size() * 48 +
         m_long_loop_index.bucket_count() * 8;
}

}  // namespace mpidle::compress
