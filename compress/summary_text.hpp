#pragma once
// summary.txt: one line per top-level element in the notation of "Tracing MPI
// binaries for knowledge discovery", e.g. ((CPU1+Send1)[124] + (CPU6+Recv6)[124])[249]: 18062611
// — A+B is A followed by B, X[n] is n iterations of X, CPU<n> the compute burst
// before the call at callsite n; the number after the colon is the element's time
// in µs (per rank, averaged over the group's ranks).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "summary_set.hpp"

namespace mpidle::compress {

enum class Detail { low, high };

struct TextOptions {
  Detail detail = Detail::low;
  std::optional<std::int32_t> rank;  // only the group of this rank
};

std::string render_summary_text(const SummarySet& set, const TextOptions& options);

// Labels and expressions, shared with the JSON form.
std::string terminal_label(const Terminal& t, std::uint32_t callsite_number);
std::string size_class_label(std::int32_t size_class);

// Renders `node` of `summary`; gives up (returns false) past `budget` nodes.
class NodeWriter {
 public:
  NodeWriter(const SummarySet& set, const Summary& summary,
             const std::vector<std::uint32_t>& numbers)
      : m_set(set), m_summary(summary), m_numbers(numbers) {}
  bool write(std::uint32_t node, std::string& out, std::size_t& budget) const;

 private:
  const SummarySet& m_set;
  const Summary& m_summary;
  const std::vector<std::uint32_t>& m_numbers;
};

// Nodes a summary is rendered with at most: summaries of irregular streams
// stop there rather than grow without bound.
inline constexpr std::size_t kRenderBudget = std::size_t{1} << 20;

}  // namespace mpidle::compress
