#pragma once
// A rank's trace as a stream of symbols: for every MPI call (its main record; the
// further records of a Waitall and the like are part of the same call) the
// compute burst since the previous call's exit, then the call itself. Call
// symbols are (function, callsite), plus peer and size class when asked.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "model/trace_file.hpp"
#include "stream_compressor.hpp"
#include "summary_set.hpp"

namespace mpidle::compress {

// Summarizes one rank's records as they come, in the compressor's bounded memory,
// so that the profiler can summarize a rank while streaming its trace out. Past
// the compressor's limits the rest of the stream is counted into one fold, so the
// summary still stands for every event.
class RankSummarizer {
 public:
  RankSummarizer(std::int32_t rank, SymbolOptions options, CompressorLimits limits = {});
  void add(const model::TraceRecord& record);
  // The summary, its terminals named from the rank's function and callsite tables.
  SummarySet finish(const std::vector<std::string>& functions,
                    const std::vector<model::Callsite>& callsites);

 private:
  using Key = std::tuple<TerminalKind, std::uint32_t, std::uint64_t, std::int32_t, std::int32_t>;
  std::uint32_t terminal(const Key& key);
  void emit(std::uint32_t terminal, std::int64_t ns);
  void append_tail(Summary& summary);

  std::int32_t m_rank;
  SymbolOptions m_options;
  StreamCompressor m_compressor;
  std::map<Key, std::uint32_t> m_ids;
  std::vector<Key> m_keys;  // by terminal id
  bool m_first = true;
  std::int64_t m_previous_exit = 0;
  // What comes past the compressor's limits, counted for one fold at the end.
  SummaryNode m_tail;
  std::int64_t m_tail_ns = 0;
  std::vector<std::uint64_t> m_tail_calls;  // by terminal
};

// One rank of `trace` (its function and callsite tables) summarized.
SummarySet summarize_rank_trace(const model::Trace& trace, const model::RankTrace& rank,
                                SymbolOptions options, CompressorLimits limits = {});

// Every rank of `trace`, merged (re-summarizing a run with other symbols).
SummarySet summarize_trace(const model::Trace& trace, SymbolOptions options,
                           CompressorLimits limits = {});

}  // namespace mpidle::compress
