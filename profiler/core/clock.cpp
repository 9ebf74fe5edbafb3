#include "profiler/core/clock.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace mpidle::profiler {
namespace {
// Long enough that clock_gettime's jitter (tens of ns) is below 1e-5 of the span.
constexpr std::uint64_t kMinCalibrationNs = 20'000'000;
}  // namespace

bool cpu_has_invariant_tsc() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

void select_timer(TimerKind kind) {
  detail::g_use_tsc = kind == TimerKind::tsc;
}

TimerKind selected_timer() {
  return detail::g_use_tsc ? TimerKind::tsc : TimerKind::monotonic;
}

const char* timer_name(TimerKind kind) {
  return kind == TimerKind::tsc ? "tsc" : "clock_gettime(CLOCK_MONOTONIC)";
}

void TickRate::start() {
  m_ns0 = monotonic_ns();
  m_ticks0 = now();
}

void TickRate::finish() {
  if (!detail::g_use_tsc) {
    m_seconds_per_tick = 1e-9;
    return;
  }
  std::uint64_t ns1 = monotonic_ns();
  while (ns1 - m_ns0 < kMinCalibrationNs) ns1 = monotonic_ns();
  const Ticks ticks1 = now();
  if (ticks1 > m_ticks0) {
    m_seconds_per_tick =
        static_cast<double>(ns1 - m_ns0) * 1e-9 / static_cast<double>(ticks1 - m_ticks0);
  }
}

double TickRate::resolution_s() const {
  if (detail::g_use_tsc) return m_seconds_per_tick;
  timespec res{};
  clock_getres(CLOCK_MONOTONIC, &res);
  return static_cast<double>(res.tv_sec) + static_cast<double>(res.tv_nsec) * 1e-9;
}

}  // namespace mpidle::profiler
