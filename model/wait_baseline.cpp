#include "wait_baseline.hpp"

#include <algorithm>

namespace mpidle::model {
namespace {

// The lowest bin holding at least this share of the calls starts the cluster of calls
// that did not wait: a handful of unusually fast calls below it do not (a
// minimum would), and calls that waited spread over the bins above it.
constexpr double kClusterShare = 0.05;

// A call's cost without waiting does not vary by this much within one key: a lowest
// cluster this far above the fastest call is calls that all waited about the same
// (a late sender that is late by the same time every step), and the fast calls
// below it are the cost.
constexpr double kCostSpread = 16;

double mean_of(std::uint64_t count, double sum) {
  return sum / static_cast<double>(count);
}

// Two adjacent bins hold one cluster when it presses on their common edge from both
// sides: the lower bin's mean in its top quarter, the upper bin's in its bottom half.
bool one_cluster(const DurationBin& lower, const DurationBin& upper) {
  if (upper.bin != lower.bin + 1 || lower.count == 0 || upper.count == 0) return false;
  const double edge = duration_bin_lower_s(upper.bin);
  const double lower_mean = lower.sum_s / static_cast<double>(lower.count);
  const double upper_mean = upper.sum_s / static_cast<double>(upper.count);
  return lower_mean >= 0.75 * edge && upper_mean <= 1.5 * edge;
}

}  // namespace

double robust_baseline_s(const DurationHistogram& durations, double minimum_s) {
  const std::uint64_t n = count_of(durations);
  if (n == 0) return minimum_s;
  std::size_t first = 0;
  while (first + 1 < durations.size() &&
         static_cast<double>(durations[first].count) < kClusterShare * static_cast<double>(n)) {
    ++first;
  }
  std::uint64_t count = durations[first].count;
  double sum = durations[first].sum_s;
  if (first > 0 && one_cluster(durations[first - 1], durations[first])) {
    count += durations[first - 1].count;
    sum += durations[first - 1].sum_s;
  }
  // Upwards, the cluster goes on over adjacent bins that hold as many calls as half of
  // its fullest one (a cost that varies by more than 2x: a transfer over TCP), or
  // that it straddles into.
  std::uint64_t fullest = durations[first].count;
  for (std::size_t next = first + 1; next < durations.size(); ++next) {
    const DurationBin& below = durations[next - 1];
    const DurationBin& bin = durations[next];
    const bool adjacent = bin.bin == below.bin + 1;
    if (!adjacent || (2 * bin.count < fullest && !one_cluster(below, bin))) break;
    count += bin.count;
    sum += bin.sum_s;
    fullest = std::max(fullest, bin.count);
    if (2 * bin.count < fullest) break;  // a straddled edge ends the cluster
  }
  const double cluster = std::max(minimum_s, mean_of(count, sum));
  if (minimum_s <= 0 || cluster <= kCostSpread * minimum_s || first == 0) return cluster;
  // The lowest non-empty bin holds the fastest call: its mean, with its upper
  // neighbour when one cluster straddles their edge.
  std::uint64_t low_count = durations[0].count;
  double low_sum = durations[0].sum_s;
  if (one_cluster(durations[0], durations[1])) {
    low_count += durations[1].count;
    low_sum += durations[1].sum_s;
  }
  return std::max(minimum_s, mean_of(low_count, low_sum));
}

}  // namespace mpidle::model
