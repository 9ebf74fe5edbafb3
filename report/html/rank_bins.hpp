#pragma once
// Consecutive ranks sharing one row (or column) of an HTML chart, so that pages
// stay readable and bounded at thousands of ranks: at most `max_bins` bins.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/profile_reader.hpp"

namespace mpidle::report {

struct RankBin {
  std::size_t first = 0, last = 0;  // indices into profile.ranks
  std::size_t size() const { return last - first + 1; }
};

inline std::vector<RankBin> rank_bins(const model::Profile& p, std::size_t max_bins) {
  const std::size_t n = p.ranks.size();
  const std::size_t per_bin = std::max<std::size_t>(1, (n + max_bins - 1) / max_bins);
  std::vector<RankBin> bins;
  for (std::size_t i = 0; i < n; i += per_bin) bins.push_back({i, std::min(n, i + per_bin) - 1});
  return bins;
}

// "3" or "0–15".
inline std::string bin_range(const model::Profile& p, const RankBin& b) {
  if (b.first == b.last) return std::to_string(p.ranks[b.first].rank);
  return std::to_string(p.ranks[b.first].rank) + "\u2013" + std::to_string(p.ranks[b.last].rank);
}

// "rank 3" or "ranks 0–15".
inline std::string bin_label(const model::Profile& p, const RankBin& b) {
  return (b.first == b.last ? "rank " : "ranks ") + bin_range(p, b);
}

// The bin of each rank number.
inline std::unordered_map<std::int64_t, std::size_t> bin_of_rank(const model::Profile& p,
                                                                 const std::vector<RankBin>& bins) {
  std::unordered_map<std::int64_t, std::size_t> out;
  for (std::size_t b = 0; b < bins.size(); ++b) {
    for (std::size_t i = bins[b].first; i <= bins[b].last; ++i) out[p.ranks[i].rank] = b;
  }
  return out;
}

}  // namespace mpidle::report
