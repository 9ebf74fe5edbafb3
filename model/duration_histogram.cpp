#include "duration_histogram.hpp"

#include <algorithm>
#include <cmath>

#include "sorted_merge.hpp"

namespace mpidle::model {

std::int32_t duration_bin_of(double seconds) {
  const double ns = seconds * 1e9;
  if (!(ns >= 2.0)) return 0;  // also NaN
  const int bin = std::ilogb(ns);
  return std::min<std::int32_t>(bin, kLastDurationBin);
}

double duration_bin_lower_s(std::int32_t bin) {
  return bin <= 0 ? 0.0 : std::ldexp(1e-9, bin);
}

void add_durations(DurationHistogram& into, std::uint64_t count, double sum_s) {
  if (count == 0) return;
  const std::int32_t bin = duration_bin_of(sum_s / static_cast<double>(count));
  auto it = std::lower_bound(into.begin(), into.end(), bin,
                             [](const DurationBin& b, std::int32_t k) { return b.bin < k; });
  if (it == into.end() || it->bin != bin) it = into.insert(it, DurationBin{bin, 0, 0});
  it->count += count;
  it->sum_s += sum_s;
}

void merge_histograms(DurationHistogram& into, const DurationHistogram& from) {
  merge_sorted(
      into, from, [](const DurationBin& a, const DurationBin& b) { return a.bin < b.bin; },
      [](DurationBin& a, const DurationBin& b) {
        a.count += b.count;
        a.sum_s += b.sum_s;
      });
}

std::uint64_t count_of(const DurationHistogram& h) {
  std::uint64_t n = 0;
  for (const DurationBin& b : h) n += b.count;
  return n;
}

bool valid_histogram(const DurationHistogram& h) {
  std::int32_t previous = -1;
  for (const DurationBin& b : h) {
    if (b.bin <= previous || b.bin > kLastDurationBin || !std::isfinite(b.sum_s) || b.sum_s < 0) {
      return false;
    }
    previous = b.bin;
  }
  return true;
}

}  // namespace mpidle::model
