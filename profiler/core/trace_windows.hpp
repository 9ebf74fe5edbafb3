#pragma once
// Profile mode's trace windows (docs/calibration.md): from time to time every rank
// records trace events for a short window, at the same instants on every rank, so
// that the exact wait analysis of the windows can calibrate the whole run's wait
// estimate. Between windows a call pays one comparison of its exit time with the
// next edge (call_edges.hpp); the edge is crossed by whichever call ends past it
// first.

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "model/window_schedule.hpp"
#include "profiler/core/call_edges.hpp"
#include "profiler/core/clock.hpp"

namespace mpidle::profiler {

namespace detail {
// Whether calls record trace events: for the whole run in trace mode, while a window
// is open in profile mode.
inline constinit std::atomic<bool> g_trace_open{false};
// Each call reads that once, at its start, so that its hooks agree about it.
[[gnu::tls_model("initial-exec")]] inline constinit thread_local bool tls_tracing = false;
// Counts the windows opened: a thread that sees it change starts counting its
// records of the new window (MPIDLE_WINDOW_RECORDS).
inline constinit std::atomic<std::uint32_t> g_window_number{0};
}  // namespace detail

// A thread's window buffer is full: the window closes now and no other opens.
[[gnu::noinline]] void window_buffer_full();
// A thread kept its MPIDLE_WINDOW_RECORDS records of this window: the window closes
// now on this process; the next opens as scheduled.
[[gnu::noinline]] void window_records_reached();

struct WindowCounts {
  std::uint32_t opened = 0;  // windows in which calls were recorded
  std::uint32_t missed = 0;  // windows no call of this rank ended inside
  std::uint32_t cut = 0;     // windows closed early by a full buffer (0 or 1)
  std::uint32_t capped = 0;  // windows closed early by MPIDLE_WINDOW_RECORDS
};

class TraceWindows {
 public:
  // Starts the schedule at `reference` (ticks), with `ns_per_tick` to place its
  // edges; sets the first edge. `ns_per_tick_now`, if given, measures the tick's
  // rate again over the run so far: each edge is placed with the rate measured when
  // it is placed. A rate calibrated over 5 ms at MPI_Init errs by 1e-6 to 1e-5, and
  // ranks would drift apart by that share of the run (a 50 ms window in 1.4-14 h).
  void start(const model::WindowSchedule& schedule, Ticks reference, double ns_per_tick,
             std::function<double()> ns_per_tick_now = {});
  // Trace mode's window check (MPIDLE_WINDOW_CHECK): the schedule and its reference
  // only, to cut the whole trace as the windows would have; nothing opens or closes.
  void place(const model::WindowSchedule& schedule, Ticks reference);
  void cross(Ticks now);
  void buffer_full();
  void records_reached();
  WindowCounts counts() const;
  const model::WindowSchedule& schedule() const { return m_schedule; }
  Ticks reference() const { return m_reference; }
  // Where windows 0, 1, ... opened (or would have, for those no call ended inside),
  // in ticks, as placed: what the finalize takes the windows' bounds from.
  std::vector<Ticks> openings() const;

 private:
  // Window k's opening, placed with the current rate when first asked for.
  Ticks opening(std::uint32_t k);
  mutable std::mutex m_mutex;
  model::WindowSchedule m_schedule;
  Ticks m_reference = 0;
  double m_ticks_per_ns = 1;
  std::function<double()> m_ns_per_tick_now;
  std::vector<Ticks> m_openings;
  std::uint32_t m_next = 0;  // the window that opens next, or is open
  bool m_open = false;       // window m_next is open (it may have closed early)
  bool m_full = false;
  WindowCounts m_counts;
};

// The process' windows (profile mode with MPIDLE_WINDOW_MS > 0).
TraceWindows& trace_windows();

}  // namespace mpidle::profiler
