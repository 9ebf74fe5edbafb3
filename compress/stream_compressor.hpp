#pragma once
// Compresses one rank's stream of symbols as it comes, in bounded memory.
//
// The top-level sequence is kept as a stack of runs (symbol × count). Each new
// symbol extends the run on top or closes it; a closed top is reduced with its
// left neighbour wherever the grammar already has that pair, so a loop the
// grammar knows keeps growing by one iteration at a time without any search.
// What the known rules cannot reduce piles up; once a chunk's worth has, Re-Pair
// (WindowCompressor) runs over the stack and finds the new rules. Top-level
// elements beyond one chunk's worth are then frozen (kept, no longer compressed),
// so that each Re-Pair pass costs O(chunk). Past the limits the summary is cut
// short: later symbols are only counted, and memory stays bounded for any input.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "grammar.hpp"
#include "window_compressor.hpp"

namespace mpidle::compress {

struct CompressorLimits {
  std::size_t chunk_symbols = 16384;  // unreduced elements that trigger a Re-Pair pass
  std::size_t max_elements = 65536;   // top-level elements before the summary is cut short
  std::size_t max_rules = 65536;      // symbols in the grammar before it is cut short
};

class StreamCompressor {
 public:
  explicit StreamCompressor(CompressorLimits limits = {});

  // One event: terminal id (chosen by the caller, dense from 0) and its duration.
  void add(std::uint32_t terminal, std::int64_t ns);
  // Compresses what is left and returns the top-level sequence (frozen elements,
  // then the rest). Loops in it are not yet counted in their timing.
  std::vector<Item> finish();

  const Grammar& grammar() const { return m_grammar; }
  std::uint64_t events() const { return m_events; }
  std::uint64_t dropped_events() const { return m_dropped; }
  bool truncated() const { return m_truncated; }
  // Largest footprint seen, in bytes (the bound docs/summary-format.md states).
  std::size_t peak_memory_bytes() const { return m_peak_bytes; }

 private:
  struct Run {
    Symbol base = kNoSymbol;
    std::uint64_t count = 1;
    std::int64_t ns = 0;
  };

  void push(Symbol s, std::int64_t ns);
  void reduce_closed_top();
  Symbol existing_symbol(const Run& run) const;
  Symbol materialize(const Run& run);
  void repair();
  std::size_t memory_bytes() const;

  CompressorLimits m_limits;
  Grammar m_grammar;
  WindowCompressor m_window_compressor;
  std::vector<Item> m_frozen;
  std::vector<Run> m_active;
  std::vector<Item> m_window;
  std::size_t m_repair_at = 0;
  std::uint64_t m_events = 0;
  std::uint64_t m_dropped = 0;
  bool m_truncated = false;
  std::size_t m_peak_bytes = 0;
};

}  // namespace mpidle::compress
