#pragma once
// Call durations by power of two of nanoseconds, with the exact sum in each bin: the
// distribution a key's calls had, from which finalize takes the robust baseline (the
// cost of a call that did not wait) beside the minimum, and which the reports show.
// Plain values only; no MPI.

#include <cstdint>
#include <vector>

namespace mpidle::model {

// Bin k holds durations in [2^k, 2^(k+1)) ns; bin 0 also everything below 1 ns and
// the last bin everything from 2^kLastDurationBin ns (about 18 minutes) on.
inline constexpr std::int32_t kLastDurationBin = 40;

struct DurationBin {
  std::int32_t bin = 0;
  std::uint64_t count = 0;
  double sum_s = 0;
  bool operator==(const DurationBin&) const = default;
};

// Non-empty bins in increasing order: at most kLastDurationBin + 1 of them.
using DurationHistogram = std::vector<DurationBin>;

std::int32_t duration_bin_of(double seconds);
double duration_bin_lower_s(std::int32_t bin);

// Adds `count` durations summing to `sum_s` to the bin of their mean.
void add_durations(DurationHistogram& into, std::uint64_t count, double sum_s);
void merge_histograms(DurationHistogram& into, const DurationHistogram& from);
std::uint64_t count_of(const DurationHistogram& h);

// False for a histogram that a reader must refuse: bins out of range or out of
// order, or a negative or non-finite sum.
bool valid_histogram(const DurationHistogram& h);

}  // namespace mpidle::model
