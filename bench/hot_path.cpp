// The parts of an intercepted call, in isolation: one clock read (TSC and
// clock_gettime) and one call-table update. Prints ns per operation, as JSON.
#include <cstdio>

#include "call_table.hpp"
#include "clock.hpp"

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
  std::printf("{\"tsc_read_ns\": %.2f, \"clock_gettime_ns\": %.2f, \"table_update_ns\": %.2f}\n",
              tsc, gettime, update);
  return 0;
}
