#include "trace_symbols.hpp"

#include <map>
#include <tuple>

namespace mpidle::compress {
namespace {

bool carries_message(const model::TraceRecord& r) {
  using model::TraceRole;
  return r.role == TraceRole::send || r.role == TraceRole::recv || r.role == TraceRole::isend ||
         r.role == TraceRole::irecv || r.bytes > 0;
}

}  // namespace

SummarySet summarize_rank_trace(const model::Trace& trace, const model::RankTrace& rank,
                                SymbolOptions options, CompressorLimits limits) {
  SummarySet set;
  set.symbols = options;
  using Key = std::tuple<TerminalKind, std::uint32_t, std::uint64_t, std::int32_t, std::int32_t>;
  std::map<Key, std::uint32_t> ids;
  auto terminal = [&](TerminalKind kind, const model::TraceRecord& r, std::int32_t peer,
                      std::int32_t size) {
    auto [it, added] = ids.try_emplace(Key{kind, r.function, r.callsite, peer, size},
                                       static_cast<std::uint32_t>(set.terminals.size()));
    if (added) {
      Terminal t;
      t.kind = kind;
      t.function = r.function < trace.functions.size() ? trace.functions[r.function] : "?";
      if (r.callsite < trace.callsites.size()) t.callsite = trace.callsites[r.callsite];
      t.peer = peer;
      t.size_class = size;
      set.terminals.push_back(std::move(t));
    }
    return it->second;
  };

  StreamCompressor compressor(limits);
  bool first = true;
  std::int64_t previous_exit = 0;
  for (const auto& r : rank.records) {
    if (r.extra != 0) continue;
    // Where the compute before the first call began is not recorded: it counts 0,
    // but keeps its symbol so that the first iteration of a loop looks like the rest.
    // Threads interleave on one rank: a call may begin before another ended.
    const std::int64_t burst = first ? 0 : std::max<std::int64_t>(0, r.enter_ns - previous_exit);
    compressor.add(terminal(TerminalKind::burst, r, kNotInSymbol, kNotInSymbol), burst);
    const std::int32_t peer = options.peer && r.peer >= 0 ? r.peer - rank.rank : kNotInSymbol;
    const std::int32_t size =
        options.size && carries_message(r) ? model::size_class(r.bytes) : kNotInSymbol;
    compressor.add(terminal(TerminalKind::call, r, peer, size),
                   std::max<std::int64_t>(0, r.exit_ns - r.enter_ns));
    previous_exit = first ? r.exit_ns : std::max(previous_exit, r.exit_ns);
    first = false;
  }
  SummaryGroup group;
  group.ranks = {rank.rank};
  group.summary = summarize(compressor);
  set.groups.push_back(std::move(group));
  return set;
}

SummarySet summarize_trace(const model::Trace& trace, SymbolOptions options,
                           CompressorLimits limits) {
  SummarySet all;
  all.symbols = options;
  for (const auto& rank : trace.ranks) {
    merge_summary_sets(all, summarize_rank_trace(trace, rank, options, limits));
  }
  return all;
}

}  // namespace mpidle::compress
