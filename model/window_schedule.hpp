#pragma once
// When profile mode's trace windows open (docs/calibration.md): the first at the
// run's start, then after gaps that double from twice the window's length up to
// the period, then once per period. Short runs are sampled densely, long set-ups
// do not hold the only windows, and a long run costs one window per period. The
// times are since the run's reference instant, which every rank takes at the
// same moment (a barrier at MPI_Init). No MPI.

#include <cstdint>
#include <vector>

namespace mpidle::model {

// Where each window opened, in ns on one rank's clock, window k at ns[k]: the edges
// the rank placed (profile mode) or the schedule's (trace mode's window check). A
// record belongs to the window whose opening is the latest at or before it.
struct WindowOpenings {
  std::vector<std::int64_t> ns;
  // 0 before the first opening.
  std::uint32_t window_at(std::int64_t t) const;
};

class WindowSchedule {
 public:
  WindowSchedule() = default;
  // `length_ns` 0: no windows.
  WindowSchedule(std::int64_t length_ns, std::int64_t period_ns);

  bool enabled() const { return m_length_ns > 0; }
  std::int64_t length_ns() const { return m_length_ns; }
  // Where window k opens, in ns after the reference instant.
  std::int64_t open_ns(std::uint32_t k) const;
  // The window whose opening is the latest at or before `since_reference_ns`
  // (0 before the first): the window a record taken then belongs to.
  std::uint32_t window_at(std::int64_t since_reference_ns) const;
  // The openings of the windows placed at `reference_ns`, up to `until_ns`.
  WindowOpenings openings(std::int64_t reference_ns, std::int64_t until_ns) const;

 private:
  std::int64_t m_length_ns = 0;
  std::int64_t m_period_ns = 0;
  // Windows before the gaps reach the period, and where the first periodic one opens.
  std::uint32_t m_doubling = 0;
  std::int64_t m_periodic_from_ns = 0;
};

}  // namespace mpidle::model
