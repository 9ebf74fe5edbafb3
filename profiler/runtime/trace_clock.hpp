#pragma once
// Trace timestamps in local nanoseconds. Ticks are converted with a rate
// calibrated once at MPI_Init, so offsets measured then and records taken later
// share one clock; linear interpolation absorbs what the calibration got wrong.
// The test-only skew (MPIDLE_TEST_CLOCK_OFFSET_US / _DRIFT_PPM) is applied here.

#include <cstdint>

#include "profiler/core/clock.hpp"

namespace mpidle::profiler {

class TraceClock {
 public:
  // Spins about 5 ms when the tick is the TSC; free for clock_gettime.
  void calibrate();
  // At finalize, before any record is converted: the rate over the whole run. Ranks
  // on one host then agree to a fraction of a microsecond on their raw clocks, where
  // 5 ms of calibration left them microseconds apart after a second.
  void refine();
  // The tick's rate over the run so far (one tight clock pair, about a microsecond):
  // the calibrated one until the run is longer than the calibration.
  double ns_per_tick_now() const;
  void set_test_skew(int rank, std::int64_t offset_us_per_rank, std::int64_t drift_ppm_per_rank);

  std::int64_t local_ns(Ticks ticks) const {
    // The test drift runs from calibration on, like a real clock's would.
    const double since_start =
        static_cast<double>(static_cast<std::int64_t>(ticks - m_tick0)) * m_ns_per_tick;
    return static_cast<std::int64_t>(m_ns0 + since_start * m_rate + m_offset_ns);
  }
  std::int64_t now_ns() const { return local_ns(now()); }
  double ns_per_tick() const { return m_ns_per_tick; }

 private:
  Ticks m_tick0 = 0;
  double m_ns0 = 0;
  double m_ns_per_tick = 1;
  bool m_calibrated = false;
  bool m_refined = false;
  double m_rate = 1;  // 1 + drift
  double m_offset_ns = 0;
};

}  // namespace mpidle::profiler
