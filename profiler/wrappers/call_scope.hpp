#pragma once
// Per-thread re-entry guard and the process-wide "are we recording" switch.
// A call is recorded only at the outermost MPI level of a thread, so an MPI_ call
// that the MPI library forwards to a PMPI_ symbol (the Fortran bindings do) and
// mpidle's own MPI traffic are never counted twice.

#include <atomic>

namespace mpidle::profiler {

namespace detail {
[[gnu::tls_model("initial-exec")]] inline constinit thread_local bool tls_in_mpi = false;
// Between MPI_Init and MPI_Finalize, when enabled and not paused by MPI_Pcontrol(0).
inline constinit std::atomic<bool> g_recording{false};
}  // namespace detail

class CallScope {
 public:
  CallScope() : m_outermost(!detail::tls_in_mpi) { detail::tls_in_mpi = true; }
  ~CallScope() {
    if (m_outermost) detail::tls_in_mpi = false;
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  bool outermost() const { return m_outermost; }
  bool records() const {
    return m_outermost && detail::g_recording.load(std::memory_order_relaxed);
  }

 private:
  bool m_outermost;
};

}  // namespace mpidle::profiler
