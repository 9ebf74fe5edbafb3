#include "summary_text.hpp"

#include <cstdio>
#include <set>

#include "model/json_fields.hpp"

namespace mpidle::compress {
namespace {

std::string micros(double ns) {
  char buf[48];
  const double us = ns / 1e3;
  std::snprintf(buf, sizeof buf, us >= 100 ? "%.0f" : us >= 1 ? "%.1f" : "%.2f", us);
  return buf;
}

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Each distinct node of an element once, outermost first, with its depth.
void list_nodes(const Summary& s, std::uint32_t node, int depth, std::set<std::uint32_t>& seen,
                std::vector<std::pair<std::uint32_t, int>>& out) {
  if (!seen.insert(node).second) return;
  out.push_back({node, depth});
  const SummaryNode& n = s.nodes[node];
  if (n.kind == NodeKind::pair) {
    list_nodes(s, n.a, depth + 1, seen, out);
    list_nodes(s, n.b, depth + 1, seen, out);
  } else if (n.kind == NodeKind::loop) {
    list_nodes(s, n.a, depth + 1, seen, out);
  }
}

void render_group(const SummarySet& set, const SummaryGroup& group,
                  const std::vector<std::uint32_t>& numbers, Detail detail, std::string& out) {
  const Summary& s = group.summary;
  const double ranks = group.ranks.empty() ? 1.0 : static_cast<double>(group.ranks.size());
  out += "## " + rank_label(group.ranks) + ": " + with_commas(s.events) + " events per rank";
  if (s.truncated && s.dropped_events > 0) {
    out += " (summary cut short; " + with_commas(s.dropped_events) +
           " later events not summarized, over all ranks of the group)";
  } else if (s.truncated) {
    out += " (past the summary's limits: the rest of the stream is one fold)";
  }
  out += "\n";
  const NodeWriter writer(set, s, numbers);
  std::size_t budget = kRenderBudget;
  for (std::size_t e = 0; e < s.sequence.size(); ++e) {
    std::string line;
    if (!writer.write(s.sequence[e].node, line, budget)) {
      out += "... " + with_commas(s.sequence.size() - e) +
             " more elements not shown (summary too large to print)\n";
      break;
    }
    out += line + ": " + micros(static_cast<double>(s.sequence[e].ns) / ranks) + "\n";
    if (detail != Detail::high) continue;
    std::set<std::uint32_t> seen;
    std::vector<std::pair<std::uint32_t, int>> nodes;
    list_nodes(s, s.sequence[e].node, 0, seen, nodes);
    char head[160];
    std::snprintf(head, sizeof head, "    %12s %14s %12s %12s %12s  %s\n", "count/rank",
                  "total us/rank", "mean us", "min us", "max us", "symbol");
    out += head;
    for (auto [n, depth] : nodes) {
      const Timing& t = s.nodes[n].timing;
      std::string expr;
      std::size_t node_budget = kRenderBudget;
      if (!writer.write(n, expr, node_budget)) expr = "(too large to print)";
      char row[160];
      std::snprintf(
          row, sizeof row, "    %12s %14s %12s %12s %12s  ",
          with_commas(static_cast<std::uint64_t>(static_cast<double>(t.count) / ranks + 0.5))
              .c_str(),
          micros(static_cast<double>(t.total_ns) / ranks).c_str(), micros(t.mean_ns()).c_str(),
          micros(static_cast<double>(t.min_or_zero())).c_str(),
          micros(static_cast<double>(t.max_ns)).c_str());
      out += row + std::string(static_cast<std::size_t>(depth) * 2, ' ') + expr + "\n";
    }
  }
}

}  // namespace

std::string size_class_label(std::int32_t size_class) {
  if (size_class <= 0) return "0";
  const std::uint64_t lower = std::uint64_t{1} << (size_class - 1);
  if (lower >= (1ull << 30)) return std::to_string(lower >> 30) + "G";
  if (lower >= (1ull << 20)) return std::to_string(lower >> 20) + "M";
  if (lower >= (1ull << 10)) return std::to_string(lower >> 10) + "K";
  return std::to_string(lower);
}

std::string terminal_label(const Terminal& t, std::uint32_t callsite_number) {
  const std::string n = std::to_string(callsite_number);
  if (t.kind == TerminalKind::burst) return "CPU" + n;
  std::string name = t.function.rfind("MPI_", 0) == 0 ? t.function.substr(4) : t.function;
  name += n;
  if (t.peer != kNotInSymbol)
    name += "@" + std::string(t.peer >= 0 ? "+" : "") + std::to_string(t.peer);
  if (t.size_class != kNotInSymbol) name += "#" + size_class_label(t.size_class);
  return name;
}

bool NodeWriter::write(std::uint32_t node, std::string& out, std::size_t& budget) const {
  if (budget == 0) return false;
  --budget;
  const SummaryNode& n = m_summary.nodes[node];
  switch (n.kind) {
    case NodeKind::leaf:
      out += terminal_label(m_set.terminals[n.a], m_numbers[n.a]);
      return true;
    case NodeKind::pair: {
      // Spaces set loops apart, as in ((CPU1+Send1)[124] + (CPU6+Recv6)[124]).
      const bool spaced = m_summary.nodes[n.a].kind == NodeKind::loop ||
                          m_summary.nodes[n.b].kind == NodeKind::loop;
      if (!write(n.a, out, budget)) return false;
      out += spaced ? " + " : "+";
      return write(n.b, out, budget);
    }
    case NodeKind::loop: {
      const bool bare = m_summary.nodes[n.a].kind == NodeKind::leaf;
      if (!bare) out += "(";
      if (!write(n.a, out, budget)) return false;
      if (!bare) out += ")";
      out += "[" + std::to_string(n.iterations) + "]";
      return true;
    }
    case NodeKind::fold: {
      // {irregular: 1,000 events, 500 calls: Testany2 x480, Isend3 x10, ...}
      out += "{irregular: " + with_commas(n.events) + " events, " + with_commas(n.calls) + " calls";
      std::uint64_t named = 0;
      for (std::size_t i = 0; i < n.top_calls.size(); ++i) {
        const auto& c = n.top_calls[i];
        out += (i == 0 ? ": " : ", ") +
               terminal_label(m_set.terminals[c.terminal], m_numbers[c.terminal]) + " x" +
               with_commas(c.count);
        named += c.count;
      }
      if (named < n.calls) out += n.top_calls.empty() ? ": ..." : ", ...";
      out += "}";
      return true;
    }
  }
  return false;
}

std::string render_summary_text(const SummarySet& set, const TextOptions& options) {
  const auto numbers = callsite_numbers(set);
  std::string out =
      "# mpidle loop summary. A+B: A then B; X[n]: n iterations of X; CPU<n>: compute before\n"
      "# the call at callsite n. {irregular: ...}: a stretch too irregular to list, as counts.\n"
      "# After ':' the element's time in us per rank.\n"
      "# Symbols: " +
      symbol_options_name(set.symbols) + (set.symbols.peer ? " (@+k: peer is own rank + k)" : "") +
      (set.symbols.size ? " (#s: message size class from s bytes)" : "") + ".\n";
  bool shown = false;
  for (const auto& group : set.groups) {
    if (options.rank) {
      bool has = false;
      for (auto r : group.ranks) has = has || r == *options.rank;
      if (!has) continue;
    }
    out += "\n";
    render_group(set, group, numbers, options.detail, out);
    shown = true;
  }
  if (!shown) {
    out += "\n(no summary" +
           (options.rank ? " for rank " + std::to_string(*options.rank) : std::string()) +
           (options.rank && set.omitted.groups > 0
                ? ": its class may be one of the " + with_commas(set.omitted.groups) + " not listed"
                : std::string()) +
           ")\n";
  }
  if (set.omitted.groups > 0 && !options.rank) {
    out += "\n... " + with_commas(set.omitted.groups) + " more rank classes (" +
           with_commas(set.omitted.ranks) + " ranks, " + with_commas(set.omitted.events) +
           " events) not shown: the summary lists the " + std::to_string(kMaxSummaryGroups) +
           " classes with the most ranks\n";
  }
  // Callsite legend: one line per number.
  std::vector<const Terminal*> by_number;
  for (std::size_t t = 0; t < set.terminals.size(); ++t) {
    const std::uint32_t n = numbers[t];
    if (n == 0) continue;
    if (by_number.size() < n) by_number.resize(n, nullptr);
    if (by_number[n - 1] == nullptr || set.terminals[t].kind == TerminalKind::call) {
      by_number[n - 1] = &set.terminals[t];
    }
  }
  if (!by_number.empty()) out += "\n# callsites\n";
  for (std::size_t n = 0; n < by_number.size(); ++n) {
    if (!by_number[n]) continue;
    const Terminal& t = *by_number[n];
    const std::string location = model::innermost_location(t.callsite.frames);
    char line[64];
    std::snprintf(line, sizeof line, "# %4zu  %-22s ", n + 1, t.function.c_str());
    out += line + location + "\n";
  }
  return out;
}

}  // namespace mpidle::compress
