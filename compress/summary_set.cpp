#include "summary_set.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace mpidle::compress {
namespace {

std::string callsite_key(const model::Callsite& c) {
  std::string key;
  for (const auto& f : c.frames) key += f.module + '\x1f' + std::to_string(f.offset) + '\x1e';
  return key;
}

std::string terminal_key(const Terminal& t) {
  return std::to_string(static_cast<int>(t.kind)) + '\x1d' + t.function + '\x1d' +
         std::to_string(t.peer) + '\x1d' + std::to_string(t.size_class) + '\x1d' +
         callsite_key(t.callsite);
}

std::vector<std::int32_t> union_of(const std::vector<std::int32_t>& a,
                                   const std::vector<std::int32_t>& b) {
  std::vector<std::int32_t> out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

std::optional<SymbolOptions> parse_symbol_options(std::string_view text) {
  if (text == "callsite") return SymbolOptions{};
  if (text == "peer") return SymbolOptions{true, false};
  if (text == "size") return SymbolOptions{false, true};
  if (text == "peer,size" || text == "peer+size" || text == "size,peer" || text == "size+peer") {
    return SymbolOptions{true, true};
  }
  return std::nullopt;
}

std::string symbol_options_name(SymbolOptions options) {
  if (options.peer && options.size) return "peer,size";
  if (options.peer) return "peer";
  if (options.size) return "size";
  return "callsite";
}

void merge_summary_sets(SummarySet& into, SummarySet&& from) {
  std::unordered_map<std::string, std::uint32_t> index;
  for (std::uint32_t i = 0; i < into.terminals.size(); ++i) {
    index.emplace(terminal_key(into.terminals[i]), i);
  }
  std::vector<std::uint32_t> remap(from.terminals.size());
  for (std::size_t i = 0; i < from.terminals.size(); ++i) {
    auto [it, added] = index.try_emplace(terminal_key(from.terminals[i]),
                                         static_cast<std::uint32_t>(into.terminals.size()));
    if (added) into.terminals.push_back(std::move(from.terminals[i]));
    remap[i] = it->second;
  }
  std::unordered_multimap<std::uint64_t, std::size_t> by_hash;
  for (std::size_t g = 0; g < into.groups.size(); ++g) {
    by_hash.emplace(structure_hash(into.groups[g].summary), g);
  }
  for (auto& group : from.groups) {
    for (auto& node : group.summary.nodes) {
      if (node.kind == NodeKind::leaf) node.a = remap.at(node.a);
      for (auto& c : node.top_calls) c.terminal = remap.at(c.terminal);
    }
    const std::uint64_t h = structure_hash(group.summary);
    bool merged = false;
    for (auto [it, end] = by_hash.equal_range(h); it != end && !merged; ++it) {
      SummaryGroup& same = into.groups[it->second];
      if (same_structure(same.summary, group.summary)) {
        add_timings(same.summary, group.summary);
        same.ranks = union_of(same.ranks, group.ranks);
        merged = true;
      }
    }
    if (!merged) {
      by_hash.emplace(h, into.groups.size());
      into.groups.push_back(std::move(group));
    }
  }
  into.omitted.groups += from.omitted.groups;
  into.omitted.ranks += from.omitted.ranks;
  into.omitted.events += from.omitted.events;
  auto by_first_rank = [](const SummaryGroup& a, const SummaryGroup& b) {
    return a.ranks.empty() || (!b.ranks.empty() && a.ranks[0] < b.ranks[0]);
  };
  if (into.groups.size() > kMaxSummaryGroups) {
    std::stable_sort(into.groups.begin(), into.groups.end(),
                     [&](const SummaryGroup& a, const SummaryGroup& b) {
                       if (a.ranks.size() != b.ranks.size()) return a.ranks.size() > b.ranks.size();
                       return by_first_rank(a, b);
                     });
    for (std::size_t g = kMaxSummaryGroups; g < into.groups.size(); ++g) {
      const auto& group = into.groups[g];
      into.omitted.groups += 1;
      into.omitted.ranks += group.ranks.size();
      into.omitted.events += group.summary.events * group.ranks.size();
    }
    into.groups.resize(kMaxSummaryGroups);
  }
  std::stable_sort(into.groups.begin(), into.groups.end(), by_first_rank);
}

std::string rank_label(const std::vector<std::int32_t>& ranks) {
  if (ranks.empty()) return "no ranks";
  if (ranks.size() == 1) return "rank " + std::to_string(ranks[0]);
  std::string out = "ranks ";
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (i > 0) out += ", ";
    out += std::to_string(ranks[i]);
    if (j > i) out += (j == i + 1 ? ", " : "\u2013") + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

std::vector<std::uint32_t> callsite_numbers(const SummarySet& set) {
  std::vector<std::uint32_t> number(set.terminals.size(), 0);
  std::map<std::string, std::uint32_t> by_callsite;
  std::vector<bool> seen(set.terminals.size(), false);
  for (const auto& group : set.groups) {
    // Leaves in the order of a left-to-right walk: a node's leaves come before
    // the node in the canonical numbering, so node order is walk order.
    auto meet = [&](std::uint32_t terminal) {
      if (terminal >= seen.size() || seen[terminal]) return;
      seen[terminal] = true;
      const std::string key = callsite_key(set.terminals[terminal].callsite);
      auto [it, added] =
          by_callsite.try_emplace(key, static_cast<std::uint32_t>(by_callsite.size() + 1));
      number[terminal] = it->second;
    };
    for (const auto& node : group.summary.nodes) {
      if (node.kind == NodeKind::leaf) meet(node.a);
      for (const auto& c : node.top_calls) meet(c.terminal);
    }
  }
  return number;
}

}  // namespace mpidle::compress
