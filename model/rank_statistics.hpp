#pragma once
// How a callsite's wait spreads over the ranks that visited it: what profile.json
// version 2 writes per callsite, and what a version-1 profile's by_rank gives. No MPI.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mpidle::model {

// How many of the ranks with the most wait each callsite lists.
inline constexpr std::size_t kTopRanks = 5;

struct RankStatistics {
  std::uint64_t count = 0;  // ranks that visited
  double min_s = 0, median_s = 0, mean_s = 0, max_s = 0;
  std::int64_t max_rank = -1;
  std::vector<std::pair<std::int64_t, double>> top;  // (rank, wait), most wait first
};

// From (rank, wait) of every visiting rank; ties in wait go to the lower rank.
RankStatistics rank_statistics(std::vector<std::pair<std::int64_t, double>> waits);

}  // namespace mpidle::model
