// The parts of an intercepted call, in isolation: one clock read (TSC and
// clock_gettime) and one call-table update; and, off the calls' path, opening and
// closing a code region (regions.hpp; a thread also forgets its 8 KiB last-call
// shortcut then, not counted here). Prints ns per operation, as JSON.
#include <cstdio>

#include "profiler/core/call_table.hpp"
#include "profiler/core/clock.hpp"
#include "profiler/core/regions.hpp"

namespace {

using mpidle::profiler::CallKey;
using mpidle::profiler::CallTable;
using mpidle::profiler::monotonic_ns;

template <typename Body>
double ns_per_op(long n, Body body) {
  const auto t0 = monotonic_ns();
  for (long i = 0; i < n; ++i) body(i);
  return static_cast<double>(monotonic_ns() - t0) / static_cast<double>(n);
}

}  // namespace

int main() {
  constexpr long kOps = 5'000'000;
  volatile std::uint64_t sink = 0;
  double tsc = 0;
#if defined(__x86_64__) || defined(__i386__)
  tsc = ns_per_op(kOps, [&](long) { sink = sink + __rdtsc(); });
#endif
  const double gettime = ns_per_op(kOps, [&](long) { sink = sink + monotonic_ns(); });
  CallTable table(16384);
  const double update = ns_per_op(kOps, [&](long i) {
    table.add(CallKey{0x401234u + static_cast<std::uintptr_t>(i & 15) * 16, 5, 3, 1},
              100 + static_cast<std::uint64_t>(i & 7), 8);
  });
  mpidle::profiler::RegionRegistry registry;
  mpidle::profiler::RegionStack regions;
  bool unmatched = false;
  const double region = ns_per_op(kOps / 10, [&](long i) {
    regions.begin(registry, (i & 1) ? "solve" : "halo", static_cast<std::uint64_t>(i));
    regions.end((i & 1) ? "solve" : "halo", static_cast<std::uint64_t>(i) + 1, unmatched);
  });
  std::printf(
      "{\"tsc_read_ns\": %.2f, \"clock_gettime_ns\": %.2f, \"table_update_ns\": %.2f, "
      "\"region_begin_end_ns\": %.2f}\n",
      tsc, gettime, update, region);
  return 0;
}
