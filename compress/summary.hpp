#pragma once
// A rank's compressed stream as plain data: nodes (leaves, pairs, loops, folds) numbered
// canonically, children before parents in the order a left-to-right walk of the
// sequence first meets them. Two ranks whose streams compress alike therefore
// have equal node lists, which is what merging across ranks compares.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stream_compressor.hpp"
#include "timing.hpp"

namespace mpidle::compress {

// A fold stands for an irregular stretch of the stream that the summary no longer
// lists symbol by symbol (summary_fold.hpp): only how many events, of which calls.
enum class NodeKind : std::uint8_t { leaf = 0, pair = 1, loop = 2, fold = 3 };

// One call symbol of a fold and how often it occurs there.
struct FoldCall {
  std::uint32_t terminal = 0;
  std::uint64_t count = 0;
  bool operator==(const FoldCall&) const = default;
  auto operator<=>(const FoldCall&) const = default;
};
// Call symbols a fold names at most, the most frequent first.
inline constexpr std::size_t kFoldCallsListed = 8;

struct SummaryNode {
  NodeKind kind = NodeKind::leaf;
  std::uint32_t a = 0;              // leaf: terminal index; pair: left node; loop: body node
  std::uint32_t b = 0;              // pair: right node
  std::uint64_t iterations = 0;     // loop
  std::uint64_t events = 0;         // fold: symbols it stands for
  std::uint64_t calls = 0;          // fold: how many of them are calls (the rest are bursts)
  std::vector<FoldCall> top_calls;  // fold: its most frequent calls
  Timing timing;                    // every occurrence of this node in the stream

  bool same_shape(const SummaryNode& o) const {
    return kind == o.kind && a == o.a && b == o.b && iterations == o.iterations &&
           events == o.events && calls == o.calls && top_calls == o.top_calls;
  }
};

// A top-level element and its own duration (the node's timing covers all of
// that node's occurrences, also inside other elements).
struct Element {
  std::uint32_t node = 0;
  std::int64_t ns = 0;
};

struct Summary {
  std::vector<SummaryNode> nodes;
  std::vector<Element> sequence;
  std::uint64_t events = 0;          // symbols summarized
  std::uint64_t dropped_events = 0;  // symbols after the summary was cut short
  bool truncated = false;
};

// The compressor's result (after finish()); leaves carry its terminal ids.
Summary summarize(StreamCompressor& compressor);

// The terminal ids of the whole stream, in order (what the summary stands for);
// folds list no terminals, so a folded summary expands to what it still lists.
std::vector<std::uint32_t> expand(const Summary& summary);
// Terminals a node stands for (a fold's events included), without materializing them.
std::uint64_t expanded_length(const Summary& summary, std::uint32_t node);
// The same for every node, by node index.
std::vector<std::uint64_t> expanded_lengths(const Summary& summary);

bool same_structure(const Summary& a, const Summary& b);
std::uint64_t structure_hash(const Summary& s);
// Adds `from`'s timings to `into`'s; both must have the same structure.
void add_timings(Summary& into, const Summary& from);

}  // namespace mpidle::compress
