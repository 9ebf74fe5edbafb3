#pragma once
// Binary form of a SummarySet, for shipping summaries between ranks in the
// finalize tree.

#include <optional>
#include <string>

#include "summary_set.hpp"

namespace mpidle::compress {

std::string encode_summary_set(const SummarySet& set);
// Empty for bytes that are not a well-formed summary set.
std::optional<SummarySet> decode_summary_set(const std::string& bytes);

}  // namespace mpidle::compress
