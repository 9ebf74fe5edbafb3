#pragma once
// The summaries of a run: what each terminal means (a call or the compute burst
// before it, at a callsite), and one group per distinct summary with the ranks
// that produced it. Ranks whose streams compress to the same structure share a
// group; their timings add up.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile_tables.hpp"
#include "summary.hpp"

namespace mpidle::compress {

enum class TerminalKind : std::uint8_t { call = 0, burst = 1 };

// Peer or size class that is not part of a symbol.
inline constexpr std::int32_t kNotInSymbol = INT32_MIN;

struct Terminal {
  TerminalKind kind = TerminalKind::call;
  std::string function;  // the call's; for a burst, the call it precedes
  model::Callsite callsite;
  std::int32_t peer = kNotInSymbol;  // peer − own rank, so that neighbours look alike
  std::int32_t size_class = kNotInSymbol;
};

// What distinguishes call symbols besides (function, callsite).
struct SymbolOptions {
  bool peer = false;
  bool size = false;
  bool operator==(const SymbolOptions&) const = default;
};
// "callsite", "peer", "size", "peer,size" (also "peer+size" and "size,peer").
std::optional<SymbolOptions> parse_symbol_options(std::string_view text);
std::string symbol_options_name(SymbolOptions options);

struct SummaryGroup {
  std::vector<std::int32_t> ranks;  // sorted
  Summary summary;
};

// Rank classes a set lists at most, so that the summary stays bounded however many
// ranks differ: those with the most ranks are kept, the others only counted.
inline constexpr std::size_t kMaxSummaryGroups = 16;

struct OmittedGroups {
  std::uint64_t groups = 0;
  std::uint64_t ranks = 0;
  std::uint64_t events = 0;  // over all their ranks
};

struct SummarySet {
  SymbolOptions symbols;
  std::vector<Terminal> terminals;
  std::vector<SummaryGroup> groups;  // by first rank
  OmittedGroups omitted;             // classes past kMaxSummaryGroups
};

// Adds `from`'s groups: terminals are unified, equal structures merge. Past
// kMaxSummaryGroups classes, the ones with the fewest ranks (then the highest
// first rank) go to `omitted`; a class left out in one subtree of a merge tree
// does not come back, so the classes kept are the largest the merges met.
void merge_summary_sets(SummarySet& into, SummarySet&& from);

// "rank 3", "ranks 0–7", "ranks 0, 2, 4–6".
std::string rank_label(const std::vector<std::int32_t>& ranks);

// Per terminal, the number its callsite is shown with (1, 2, …): callsites are
// numbered in the order a walk of the groups' sequences first meets them.
std::vector<std::uint32_t> callsite_numbers(const SummarySet& set);

}  // namespace mpidle::compress
