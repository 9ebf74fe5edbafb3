#pragma once
// Per-thread re-entry guard and the process-wide "are we recording" switch.
// A call is recorded only at the outermost MPI level of a thread, so an MPI_ call
// that the MPI library forwards to a PMPI_ symbol (the Fortran bindings do) and
// mpidle's own MPI traffic are never counted twice.

#include <atomic>
#include <cstdint>

#include "mpi_fn.hpp"

namespace mpidle::profiler {

namespace detail {
// 0 outside MPI; inside, the outermost call's function + 1 (kOwnWork for mpidle's
// own): one store per call, as a flag would be, that also tells a stalled rank's
// watcher (runtime/stall_watch.hpp) which call the thread is in. Relaxed atomic for
// that reader; a plain store and load on x86.
inline constexpr std::uint16_t kOwnWork = 0xffff;
[[gnu::tls_model("initial-exec")]] inline constinit thread_local std::atomic<std::uint16_t>
    tls_in_mpi{0};
constexpr std::uint16_t in_mpi_value(MpiFn fn) {
  return static_cast<std::uint16_t>(static_cast<std::uint16_t>(fn) + 1);
}
// Between MPI_Init and MPI_Finalize, when enabled and not paused by MPI_Pcontrol(0).
inline constinit std::atomic<bool> g_recording{false};
}  // namespace detail

class CallScope {
 public:
  // mpidle's own work inside a wrapper.
  CallScope() : CallScope(detail::kOwnWork) {}
  explicit CallScope(MpiFn fn) : CallScope(detail::in_mpi_value(fn)) {}
  ~CallScope() {
    if (m_outermost) detail::tls_in_mpi.store(0, std::memory_order_relaxed);
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  bool outermost() const { return m_outermost; }
  bool records() const {
    return m_outermost && detail::g_recording.load(std::memory_order_relaxed);
  }

 private:
  explicit CallScope(std::uint16_t value)
      : m_outermost(detail::tls_in_mpi.load(std::memory_order_relaxed) == 0) {
    if (m_outermost) detail::tls_in_mpi.store(value, std::memory_order_relaxed);
  }
  bool m_outermost;
};

}  // namespace mpidle::profiler
