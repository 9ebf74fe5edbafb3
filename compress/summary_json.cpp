#include "summary_json.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "model/json_fields.hpp"
#include "model/trace_file.hpp"
#include "summary_text.hpp"

namespace mpidle::compress {
namespace {

using model::Fields;
using model::ProfileError;
using nlohmann::json;

json timing_json(const Timing& t) {
  return {{"count", t.count},
          {"total_s", static_cast<double>(t.total_ns) * 1e-9},
          {"mean_s", t.mean_ns() * 1e-9},
          {"min_s", static_cast<double>(t.min_or_zero()) * 1e-9},
          {"max_s", static_cast<double>(t.max_ns) * 1e-9}};
}

// Seconds as nanoseconds, within the times a trace can hold: a corrupted file's
// 2.65e116 s would not convert.
std::int64_t ns_of(const Fields& f, const char* key) {
  const double ns = f.get<double>(key) * 1e9 + 0.5;
  constexpr auto limit = static_cast<double>(model::kMaxTraceTimeNs);
  if (!(ns >= -limit && ns <= limit)) throw model::ProfileError(f.where(key) + " is out of range");
  return static_cast<std::int64_t>(ns);
}

Timing timing_from(const Fields& f) {
  Timing t;
  t.count = f.get<std::uint64_t>("count");
  t.total_ns = ns_of(f, "total_s");
  t.min_ns = t.count ? ns_of(f, "min_s") : Timing{}.min_ns;
  t.max_ns = ns_of(f, "max_s");
  return t;
}

// Tree nodes nest one JSON level each, below a few levels of the document.
constexpr int kMaxTreeDepth = model::kMaxJsonDepth - 16;

class TreeWriter {
 public:
  TreeWriter(const SummarySet& set, const Summary& s, const std::vector<std::uint32_t>& numbers)
      : m_set(set), m_summary(s), m_numbers(numbers) {}

  // False past `budget` nodes, or deeper than readers accept (the element is then
  // left out, as one too large).
  bool write(std::uint32_t node, json& out, std::size_t& budget, int depth = 0) const {
    if (budget == 0 || depth > kMaxTreeDepth) return false;
    --budget;
    const SummaryNode& n = m_summary.nodes[node];
    switch (n.kind) {
      case NodeKind::leaf:
        out = terminal_json(n.a);
        out["type"] = "leaf";
        break;
      case NodeKind::pair: {
        json left, right;
        if (!write(n.a, left, budget, depth + 1) || !write(n.b, right, budget, depth + 1))
          return false;
        out = {{"type", "pair"}, {"left", std::move(left)}, {"right", std::move(right)}};
        break;
      }
      case NodeKind::loop: {
        json body;
        if (!write(n.a, body, budget, depth + 1)) return false;
        out = {{"type", "loop"}, {"iterations", n.iterations}, {"body", std::move(body)}};
        break;
      }
      case NodeKind::fold: {
        json top = json::array();
        for (const auto& c : n.top_calls) {
          top.push_back(terminal_json(c.terminal));
          top.back()["count"] = c.count;
        }
        out = {{"type", "fold"},
               {"events", n.events},
               {"calls", n.calls},
               {"top_calls", std::move(top)}};
        break;
      }
    }
    out["timing"] = timing_json(n.timing);
    return true;
  }

 private:
  json terminal_json(std::uint32_t terminal) const {
    const Terminal& t = m_set.terminals[terminal];
    json out = {{"kind", t.kind == TerminalKind::call ? "call" : "burst"},
                {"label", terminal_label(t, m_numbers[terminal])},
                {"function", t.function},
                {"callsite", m_numbers[terminal]},
                {"location", model::innermost_location(t.callsite.frames)}};
    if (t.peer != kNotInSymbol) out["peer"] = t.peer;
    if (t.size_class != kNotInSymbol) out["size_class"] = t.size_class;
    return out;
  }

  const SummarySet& m_set;
  const Summary& m_summary;
  const std::vector<std::uint32_t>& m_numbers;
};

// Terminals by (kind, function, callsite id, peer, size class), over all groups.
using TerminalIndex =
    std::map<std::tuple<int, std::string, std::uint64_t, std::int32_t, std::int32_t>,
             std::uint32_t>;

// Rebuilds the node list in canonical order (children first, first meeting wins).
class TreeReader {
 public:
  TreeReader(SummarySet& set, Summary& s, const std::map<std::uint64_t, model::Callsite>& sites,
             TerminalIndex& terminals)
      : m_set(set), m_summary(s), m_sites(sites), m_terminals(terminals) {}

  std::uint32_t read(const Fields& f) {
    const std::string type = f.get<std::string>("type");
    SummaryNode n;
    if (type == "leaf") {
      n.kind = NodeKind::leaf;
      n.a = terminal(f);
    } else if (type == "pair") {
      n.kind = NodeKind::pair;
      n.a = read(Fields(f.at("left"), f.where("left")));
      n.b = read(Fields(f.at("right"), f.where("right")));
    } else if (type == "loop") {
      n.kind = NodeKind::loop;
      n.iterations = f.get<std::uint64_t>("iterations");
      n.a = read(Fields(f.at("body"), f.where("body")));
    } else if (type == "fold") {
      n.kind = NodeKind::fold;
      n.events = f.get<std::uint64_t>("events");
      n.calls = f.get<std::uint64_t>("calls");
      if (n.calls > n.events) throw ProfileError(f.where("calls") + " is more than its events");
      const json& top = f.array("top_calls");
      if (top.size() > kFoldCallsListed) throw ProfileError(f.where("top_calls") + " is too long");
      for (std::size_t i = 0; i < top.size(); ++i) {
        Fields c(top[i], f.where("top_calls") + "[" + std::to_string(i) + "]");
        n.top_calls.push_back({terminal(c), c.get<std::uint64_t>("count")});
      }
    } else {
      throw ProfileError(f.where("type") + " is \"" + type + "\", not leaf, pair, loop or fold");
    }
    const auto key = std::make_tuple(static_cast<int>(n.kind), n.a, n.b, n.iterations, n.events,
                                     n.calls, n.top_calls);
    auto [it, added] = m_nodes.try_emplace(key, static_cast<std::uint32_t>(m_summary.nodes.size()));
    if (added) {
      n.timing = timing_from(Fields(f.at("timing"), f.where("timing")));
      m_summary.nodes.push_back(n);
    }
    return it->second;
  }

 private:
  std::uint32_t terminal(const Fields& f) {
    Terminal t;
    const std::string kind = f.get<std::string>("kind");
    if (kind != "call" && kind != "burst")
      throw ProfileError(f.where("kind") + " is not call or burst");
    t.kind = kind == "call" ? TerminalKind::call : TerminalKind::burst;
    t.function = f.get<std::string>("function");
    const auto site = f.get<std::uint64_t>("callsite");
    auto found = m_sites.find(site);
    if (found == m_sites.end())
      throw ProfileError(f.where("callsite") + " is not in summary.callsites");
    t.callsite = found->second;
    const auto optional_int = [&f](const char* key) {
      return f.has(key) ? static_cast<std::int32_t>(f.get<std::int64_t>(key)) : kNotInSymbol;
    };
    t.peer = optional_int("peer");
    t.size_class = optional_int("size_class");
    const auto key =
        std::make_tuple(static_cast<int>(t.kind), t.function, site, t.peer, t.size_class);
    auto [it, added] =
        m_terminals.try_emplace(key, static_cast<std::uint32_t>(m_set.terminals.size()));
    if (added) m_set.terminals.push_back(std::move(t));
    return it->second;
  }

  SummarySet& m_set;
  Summary& m_summary;
  const std::map<std::uint64_t, model::Callsite>& m_sites;
  TerminalIndex& m_terminals;
  std::map<std::tuple<int, std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t,
                      std::uint64_t, std::vector<FoldCall>>,
           std::uint32_t>
      m_nodes;
};

}  // namespace

json summary_to_json(const SummarySet& set) {
  const auto numbers = callsite_numbers(set);
  json callsites = json::array();
  std::vector<bool> listed;
  for (std::size_t t = 0; t < set.terminals.size(); ++t) {
    const std::uint32_t n = numbers[t];
    if (n == 0) continue;
    if (listed.size() < n) listed.resize(n, false);
    if (listed[n - 1]) continue;
    listed[n - 1] = true;
    const Terminal& term = set.terminals[t];
    callsites.push_back({{"id", n},
                         {"location", model::innermost_location(term.callsite.frames)},
                         {"frames", model::frames_json(term.callsite)}});
  }
  std::sort(callsites.begin(), callsites.end(),
            [](const json& a, const json& b) { return a["id"] < b["id"]; });
  json groups = json::array();
  for (const auto& group : set.groups) {
    const Summary& s = group.summary;
    const double ranks = group.ranks.empty() ? 1.0 : static_cast<double>(group.ranks.size());
    const TreeWriter writer(set, s, numbers);
    const NodeWriter text_writer(set, s, numbers);
    json sequence = json::array();
    std::size_t budget = kRenderBudget, text_budget = kRenderBudget;
    std::size_t shown = 0;
    for (const auto& e : s.sequence) {
      json tree;
      std::string text;
      if (!writer.write(e.node, tree, budget) || !text_writer.write(e.node, text, text_budget)) {
        break;
      }
      sequence.push_back({{"text", std::move(text)},
                          {"time_s", static_cast<double>(e.ns) * 1e-9},
                          {"per_rank_s", static_cast<double>(e.ns) * 1e-9 / ranks},
                          {"tree", std::move(tree)}});
      ++shown;
    }
    groups.push_back({{"ranks", group.ranks},
                      {"label", rank_label(group.ranks)},
                      {"events", s.events},
                      {"dropped_events", s.dropped_events},
                      {"truncated", s.truncated},
                      {"omitted_elements", s.sequence.size() - shown},
                      {"sequence", std::move(sequence)}});
  }
  return {{"schema", kSummarySchema},
          {"symbols", symbol_options_name(set.symbols)},
          {"callsites", std::move(callsites)},
          {"groups", std::move(groups)},
          {"omitted_groups",
           {{"groups", set.omitted.groups},
            {"ranks", set.omitted.ranks},
            {"events", set.omitted.events}}}};
}

SummarySet summary_from_json(const json& section) {
  Fields top(section, "summary");
  const std::string schema = top.get<std::string>("schema");
  if (schema != kSummarySchema && schema != kSummarySchemaV1) {
    throw ProfileError("summary.schema is not \"" + std::string(kSummarySchema) + "\"");
  }
  SummarySet set;
  const auto symbols = parse_symbol_options(top.get<std::string>("symbols"));
  if (!symbols) throw ProfileError("summary.symbols is not callsite, peer, size or peer,size");
  set.symbols = *symbols;
  std::map<std::uint64_t, model::Callsite> sites;
  for (const auto& c : model::rows<std::pair<std::uint64_t, model::Callsite>>(
           top, "callsites", [](const Fields& f) {
             model::Callsite site;
             site.frames = model::rows<model::Frame>(f, "frames", model::parse_frame);
             return std::make_pair(f.get<std::uint64_t>("id"), std::move(site));
           })) {
    sites[c.first] = c.second;
  }
  TerminalIndex terminals;
  const json& groups = top.array("groups");
  for (std::size_t g = 0; g < groups.size(); ++g) {
    Fields gf(groups[g], "summary.groups[" + std::to_string(g) + "]");
    SummaryGroup group;
    for (const auto& r : gf.array("ranks")) {
      if (!r.is_number_integer()) throw ProfileError(gf.where("ranks") + " holds a non-integer");
      group.ranks.push_back(r.get<std::int32_t>());
    }
    Summary& s = group.summary;
    s.events = gf.get<std::uint64_t>("events");
    s.dropped_events = gf.get<std::uint64_t>("dropped_events");
    s.truncated = gf.at("truncated").is_boolean() && gf.at("truncated").get<bool>();
    TreeReader reader(set, s, sites, terminals);
    const json& sequence = gf.array("sequence");
    for (std::size_t e = 0; e < sequence.size(); ++e) {
      Fields ef(sequence[e], gf.where("sequence") + "[" + std::to_string(e) + "]");
      const std::uint32_t node = reader.read(Fields(ef.at("tree"), ef.where("tree")));
      s.sequence.push_back({node, ns_of(ef, "time_s")});
    }
    set.groups.push_back(std::move(group));
  }
  if (top.has("omitted_groups")) {
    Fields omitted(top.at("omitted_groups"), top.where("omitted_groups"));
    set.omitted.groups = omitted.get<std::uint64_t>("groups");
    set.omitted.ranks = omitted.get<std::uint64_t>("ranks");
    set.omitted.events = omitted.get<std::uint64_t>("events");
  }
  return set;
}

}  // namespace mpidle::compress
