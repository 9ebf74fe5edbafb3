#include "profiler/runtime/trace_clock.hpp"

namespace mpidle::profiler {
namespace {

struct Pair {
  Ticks ticks;
  std::uint64_t ns;
};

// A (ticks, ns) pair read close together: of several tries, the one whose two
// tick reads around the clock_gettime are nearest (a preemption in between would
// skew the rate).
Pair tight_pair() {
  Pair best{0, 0};
  Ticks best_gap = ~Ticks{0};
  for (int i = 0; i < 32; ++i) {
    const Ticks a = now();
    const std::uint64_t ns = monotonic_ns();
    const Ticks b = now();
    if (b - a < best_gap) {
      best_gap = b - a;
      best = Pair{a + (b - a) / 2, ns};
    }
  }
  return best;
}

}  // namespace

void TraceClock::calibrate() {
  if (selected_timer() != TimerKind::tsc) {
    m_tick0 = monotonic_ns();
    m_ns0 = static_cast<double>(m_tick0);
    m_ns_per_tick = 1;
    return;
  }
  constexpr std::uint64_t kSpanNs = 5'000'000;
  const Pair first = tight_pair();
  while (monotonic_ns() - first.ns < kSpanNs) {
  }
  const Pair last = tight_pair();
  m_tick0 = first.ticks;
  m_ns0 = static_cast<double>(first.ns);
  if (last.ticks > first.ticks) {
    m_ns_per_tick =
        static_cast<double>(last.ns - first.ns) / static_cast<double>(last.ticks - first.ticks);
  }
  m_calibrated = true;
}

double TraceClock::ns_per_tick_now() const {
  if (!m_calibrated || selected_timer() != TimerKind::tsc) return m_ns_per_tick;
  const Pair last = tight_pair();
  // Over less than the calibration's span the calibration is as good.
  constexpr std::uint64_t kMinSpanNs = 5'000'000;
  if (last.ticks <= m_tick0 || last.ns < static_cast<std::uint64_t>(m_ns0) + kMinSpanNs) {
    return m_ns_per_tick;
  }
  return (static_cast<double>(last.ns) - m_ns0) / static_cast<double>(last.ticks - m_tick0);
}

void TraceClock::refine() {
  if (m_refined) return;
  m_refined = true;
  m_ns_per_tick = ns_per_tick_now();
}

void TraceClock::set_test_skew(int rank, std::int64_t offset_us_per_rank,
                               std::int64_t drift_ppm_per_rank) {
  m_offset_ns = static_cast<double>(rank) * static_cast<double>(offset_us_per_rank) * 1e3;
  m_rate = 1 + static_cast<double>(rank) * static_cast<double>(drift_ppm_per_rank) * 1e-6;
}

}  // namespace mpidle::profiler
