#include "rank_statistics.hpp"

#include <algorithm>

namespace mpidle::model {

RankStatistics rank_statistics(std::vector<std::pair<std::int64_t, double>> waits) {
  RankStatistics s;
  if (waits.empty()) return s;
  // Most wait first; among equals, the lower rank.
  std::sort(waits.begin(), waits.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  const std::size_t n = waits.size();
  s.count = n;
  s.max_s = waits.front().second;
  s.min_s = waits.back().second;
  s.median_s = n % 2 ? waits[n / 2].second : 0.5 * (waits[n / 2 - 1].second + waits[n / 2].second);
  double sum = 0;
  for (const auto& w : waits) sum += w.second;
  s.mean_s = sum / static_cast<double>(n);
  s.max_rank = waits.front().first;
  waits.resize(std::min(n, kTopRanks));
  s.top = std::move(waits);
  return s;
}

}  // namespace mpidle::model
