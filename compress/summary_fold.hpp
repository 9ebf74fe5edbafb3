#pragma once
// Keeps a summary's printed size within a budget whatever the stream. A regular
// program's summary is a few loops; an irregular one (polls that succeed after a
// varying number of tries) leaves up to the compressor's 65,536 top-level elements,
// which printed in full made a 200 MB profile.json. Where printing every top-level
// element would take more than the budget of tree nodes, the elements that stand
// for the most events per printed node are kept, and each stretch between them
// becomes one fold: how many events, how many of them calls and which calls
// (the kFoldCallsListed most frequent, with their counts), over how long.

#include <cstddef>

#include "summary_set.hpp"

namespace mpidle::compress {

// Tree nodes one group prints at most (summary.txt's expressions, profile.json's
// trees): at most about 0.6 MB of JSON.
inline constexpr std::size_t kFoldBudget = 2048;

// Folds `summary` (its leaves index `terminals`) to at most `budget` printed
// nodes, in canonical numbering again; unchanged when it fits already.
void fold_summary(Summary& summary, const std::vector<Terminal>& terminals,
                  std::size_t budget = kFoldBudget);
// Every group of `set`.
void fold_summaries(SummarySet& set, std::size_t budget = kFoldBudget);

// A fold's top_calls from its call counts: the kFoldCallsListed most frequent,
// most frequent first (ties in terminal order).
std::vector<FoldCall> most_frequent_calls(std::vector<FoldCall> calls);

}  // namespace mpidle::compress
