#include "profiler/core/trace_windows.hpp"

namespace mpidle::profiler {

// Never destroyed: a program may call MPI from a destructor or an atexit handler
// that runs after this library's own exit handlers, and every wrapper crosses
// window edges.
TraceWindows& trace_windows() {
  static auto& windows = *new TraceWindows;
  return windows;
}

void window_buffer_full() {
  trace_windows().buffer_full();
}

void window_records_reached() {
  trace_windows().records_reached();
}

Ticks TraceWindows::opening(std::uint32_t k) {
  while (m_openings.size() <= k) {
    const auto ns =
        static_cast<double>(m_schedule.open_ns(static_cast<std::uint32_t>(m_openings.size())));
    m_openings.push_back(m_reference + static_cast<Ticks>(ns * m_ticks_per_ns));
  }
  return m_openings[k];
}

void TraceWindows::start(const model::WindowSchedule& schedule, Ticks reference, double ns_per_tick,
                         std::function<double()> ns_per_tick_now) {
  std::lock_guard lock(m_mutex);
  m_schedule = schedule;
  m_reference = reference;
  m_ticks_per_ns = ns_per_tick > 0 ? 1.0 / ns_per_tick : 1.0;
  m_ns_per_tick_now = std::move(ns_per_tick_now);
  m_openings.clear();
  m_openings.reserve(64);
  m_next = 0;
  m_open = false;
  m_full = false;
  m_counts = {};
  detail::g_trace_open.store(false, std::memory_order_relaxed);
  set_window_edge(schedule.enabled() ? opening(0) : ~Ticks{0});
}

void TraceWindows::place(const model::WindowSchedule& schedule, Ticks reference) {
  std::lock_guard lock(m_mutex);
  m_schedule = schedule;
  m_reference = reference;
}

void TraceWindows::cross(Ticks now) {
  // Another thread crossing the same edge does the work; this call goes on.
  std::unique_lock lock(m_mutex, std::try_to_lock);
  if (!lock.owns_lock() || m_full || !m_schedule.enabled()) return;
  if (now < detail::g_window_edge.load(std::memory_order_relaxed)) return;
  if (m_ns_per_tick_now) {
    const double ns_per_tick = m_ns_per_tick_now();
    if (ns_per_tick > 0) m_ticks_per_ns = 1.0 / ns_per_tick;
  }
  if (m_open) {
    detail::g_trace_open.store(false, std::memory_order_relaxed);
    m_open = false;
    ++m_next;
  }
  // The next window that has not ended yet opens now if it has begun.
  for (;;) {
    const Ticks opens = opening(m_next);
    const Ticks closes =
        opens + static_cast<Ticks>(static_cast<double>(m_schedule.length_ns()) * m_ticks_per_ns);
    if (now >= closes) {
      ++m_counts.missed;
      ++m_next;
      continue;
    }
    if (now >= opens) {
      ++m_counts.opened;
      m_open = true;
      detail::g_window_number.fetch_add(1, std::memory_order_relaxed);
      detail::g_trace_open.store(true, std::memory_order_relaxed);
      set_window_edge(closes);
    } else {
      set_window_edge(opens);
    }
    return;
  }
}

void TraceWindows::buffer_full() {
  std::lock_guard lock(m_mutex);
  set_window_edge(~Ticks{0});
  if (detail::g_trace_open.exchange(false, std::memory_order_relaxed) && !m_full) ++m_counts.cut;
  m_full = true;
}

void TraceWindows::records_reached() {
  std::lock_guard lock(m_mutex);
  // The edge stays: crossing it closes the window (already closed) and places the next.
  if (m_open && detail::g_trace_open.exchange(false, std::memory_order_relaxed)) ++m_counts.capped;
}

std::vector<Ticks> TraceWindows::openings() const {
  std::lock_guard lock(m_mutex);
  return m_openings;
}

WindowCounts TraceWindows::counts() const {
  std::lock_guard lock(m_mutex);
  return m_counts;
}

}  // namespace mpidle::profiler
