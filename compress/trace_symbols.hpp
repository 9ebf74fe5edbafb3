#pragma once
// A rank's trace as a stream of symbols: for every MPI call (its main record; the
// further records of a Waitall and the like are part of the same call) the
// compute burst since the previous call's exit, then the call itself. Call
// symbols are (function, callsite), plus peer and size class when asked.

#include "model/trace_file.hpp"
#include "stream_compressor.hpp"
#include "summary_set.hpp"

namespace mpidle::compress {

// One rank of `trace` (its function and callsite tables) summarized.
SummarySet summarize_rank_trace(const model::Trace& trace, const model::RankTrace& rank,
                                SymbolOptions options, CompressorLimits limits = {});

// Every rank of `trace`, merged (re-summarizing a run with other symbols).
SummarySet summarize_trace(const model::Trace& trace, SymbolOptions options,
                           CompressorLimits limits = {});

}  // namespace mpidle::compress
