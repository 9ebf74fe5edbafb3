#pragma once
// Per-thread re-entry guard and the process-wide "are we recording" switch.
// A call is recorded only at the outermost MPI level of a thread, so an MPI_ call
// that the MPI library forwards to a PMPI_ symbol (the Fortran bindings do) and
// mpidle's own MPI traffic are never counted twice.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "mpi_fn.hpp"

namespace mpidle::profiler {

namespace detail {
// 0 outside MPI; inside, the outermost call's function + 1 (kOwnWork for mpidle's
// own, kLaterFunction past the first 253 of the table: MPI-IO, the tools
// interface): one byte stored per call, as the flag it replaced was (the same
// instructions, callgrind; a 16-bit or atomic word cost 1 to 2 more), that also
// tells a stalled rank's watcher (runtime/checkpoints.hpp) which call the thread
// is in. The watcher reads it with a relaxed atomic load of the byte.
inline constexpr std::uint8_t kOwnWork = 0xff;
inline constexpr std::uint8_t kLaterFunction = 0xfe;
[[gnu::tls_model("initial-exec")]] inline constinit thread_local std::uint8_t tls_in_mpi = 0;
constexpr std::uint8_t in_mpi_value(MpiFn fn) {
  const auto index = static_cast<std::size_t>(fn);
  return index + 1 < kLaterFunction ? static_cast<std::uint8_t>(index + 1) : kLaterFunction;
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
    if (m_outermost) detail::tls_in_mpi = 0;
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  bool outermost() const { return m_outermost; }
  bool records() const {
    return m_outermost && detail::g_recording.load(std::memory_order_relaxed);
  }

 private:
  // Stored whatever the depth, as the flag was (no branch): a nested call names
  // itself until the outermost one ends.
  explicit CallScope(std::uint8_t value) : m_outermost(detail::tls_in_mpi == 0) {
    detail::tls_in_mpi = value;
  }
  bool m_outermost;
};

}  // namespace mpidle::profiler
