#pragma once
// The profiler's clock: the invariant TSC where the CPU has one (one instruction,
// no syscall), else CLOCK_MONOTONIC through the vDSO. Ticks become seconds only at
// finalize, with a rate measured over the run itself.

#include <cstdint>
#include <ctime>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace mpidle::profiler {

using Ticks = std::uint64_t;

enum class TimerKind : std::uint8_t { tsc, monotonic };

namespace detail {
inline constinit bool g_use_tsc = false;
}

inline std::uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::uint64_t monotonic_ns() {
  return clock_ns(CLOCK_MONOTONIC);
}

// CPU time of the calling thread: the finalize's work and the polling of its waits,
// without the time it was descheduled or slept (on a node with more ranks than
// cores, most of the rest).
inline std::uint64_t thread_cpu_ns() {
  return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

// Inlined: a call around the clock read would count in every call's time.
[[gnu::always_inline]] inline Ticks now() {
#if defined(__x86_64__) || defined(__i386__)
  if (detail::g_use_tsc) return __rdtsc();
#endif
  return monotonic_ns();
}

// True when the CPU reports an invariant TSC (constant rate, runs in every C-state).
bool cpu_has_invariant_tsc();

// Selects the clock; call before any call is timed.
void select_timer(TimerKind kind);
TimerKind selected_timer();
const char* timer_name(TimerKind kind);

// Converts ticks to seconds using two (ticks, ns) pairs taken at the run's start
// and end. For runs shorter than the calibration span it waits out the rest of it.
class TickRate {
 public:
  void start();
  void finish();
  double seconds(Ticks ticks) const { return static_cast<double>(ticks) * m_seconds_per_tick; }
  double resolution_s() const;

 private:
  Ticks m_ticks0 = 0;
  std::uint64_t m_ns0 = 0;
  double m_seconds_per_tick = 1e-9;
};

}  // namespace mpidle::profiler
