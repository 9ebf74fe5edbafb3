#include "trace_symbols.hpp"

#include <algorithm>

#include "summary_fold.hpp"

namespace mpidle::compress {
namespace {

bool carries_message(const model::TraceRecord& r) {
  using model::TraceRole;
  return r.role == TraceRole::send || r.role == TraceRole::recv || r.role == TraceRole::isend ||
         r.role == TraceRole::irecv || r.bytes > 0;
}

}  // namespace

RankSummarizer::RankSummarizer(std::int32_t rank, SymbolOptions options, CompressorLimits limits)
    : m_rank(rank), m_options(options), m_compressor(limits) {}

std::uint32_t RankSummarizer::terminal(const Key& key) {
  auto [it, added] = m_ids.try_emplace(key, static_cast<std::uint32_t>(m_keys.size()));
  if (added) m_keys.push_back(key);
  return it->second;
}

void RankSummarizer::emit(std::uint32_t terminal, std::int64_t ns) {
  const std::uint64_t kept = m_compressor.events();
  m_compressor.add(terminal, ns);
  if (m_compressor.events() != kept) return;
  // Past the compressor's limits: the rest of the stream becomes one fold.
  ++m_tail.events;
  m_tail_ns += ns;
  if (std::get<0>(m_keys[terminal]) == TerminalKind::call) {
    ++m_tail.calls;
    if (m_tail_calls.size() <= terminal) m_tail_calls.resize(terminal + 1, 0);
    ++m_tail_calls[terminal];
  }
}

void RankSummarizer::add(const model::TraceRecord& r) {
  if (r.extra != 0) return;
  // Where the compute before the first call began is not recorded: it counts 0,
  // but keeps its symbol so that the first iteration of a loop looks like the rest.
  // Threads interleave on one rank: a call may begin before another ended.
  const std::int64_t burst = m_first ? 0 : std::max<std::int64_t>(0, r.enter_ns - m_previous_exit);
  emit(terminal({TerminalKind::burst, r.function, r.callsite, kNotInSymbol, kNotInSymbol}), burst);
  const std::int32_t peer = m_options.peer && r.peer >= 0 ? r.peer - m_rank : kNotInSymbol;
  const std::int32_t size =
      m_options.size && carries_message(r) ? model::size_class(r.bytes) : kNotInSymbol;
  emit(terminal({TerminalKind::call, r.function, r.callsite, peer, size}),
       std::max<std::int64_t>(0, r.exit_ns - r.enter_ns));
  m_previous_exit = m_first ? r.exit_ns : std::max(m_previous_exit, r.exit_ns);
  m_first = false;
}

SummarySet RankSummarizer::finish(const std::vector<std::string>& functions,
                                  const std::vector<model::Callsite>& callsites) {
  SummarySet set;
  set.symbols = m_options;
  for (const auto& [kind, function, callsite, peer, size] : m_keys) {
    Terminal t;
    t.kind = kind;
    t.function = function < functions.size() ? functions[function] : "?";
    if (callsite < callsites.size()) t.callsite = callsites[callsite];
    t.peer = peer;
    t.size_class = size;
    set.terminals.push_back(std::move(t));
  }
  SummaryGroup group;
  group.ranks = {m_rank};
  group.summary = summarize(m_compressor);
  if (m_tail.events > 0) append_tail(group.summary);
  set.groups.push_back(std::move(group));
  fold_summaries(set);
  return set;
}

void RankSummarizer::append_tail(Summary& summary) {
  SummaryNode fold = m_tail;
  fold.kind = NodeKind::fold;
  std::vector<FoldCall> calls;
  for (std::uint32_t t = 0; t < m_tail_calls.size(); ++t) {
    if (m_tail_calls[t] > 0) calls.push_back({t, m_tail_calls[t]});
  }
  fold.top_calls = most_frequent_calls(std::move(calls));
  fold.timing.add(m_tail_ns);
  summary.sequence.push_back({static_cast<std::uint32_t>(summary.nodes.size()), m_tail_ns});
  summary.nodes.push_back(std::move(fold));
  // The tail is summarized now, as a fold: no event is left out.
  summary.events += m_tail.events;
  summary.dropped_events = 0;
}

SummarySet summarize_rank_trace(const model::Trace& trace, const model::RankTrace& rank,
                                SymbolOptions options, CompressorLimits limits) {
  RankSummarizer summarizer(rank.rank, options, limits);
  for (const auto& r : rank.records) summarizer.add(r);
  return summarizer.finish(trace.functions, trace.callsites);
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
