#pragma once
// One intercepted call: its two clock reads and its single table update, and in
// trace mode one record (plus one per further request or message it completes).

#include <cstdint>

#include "model/profile_tables.hpp"
#include "model/trace_events.hpp"
#include "mpi_fn.hpp"
#include "profiler/core/clock.hpp"
#include "profiler/core/trace_info.hpp"
#include "profiler/core/trace_windows.hpp"
#include "profiler/runtime/context.hpp"
#include "profiler/wrappers/call_scope.hpp"

namespace mpidle::profiler {

namespace detail {
// Set once at MPI_Init, before any call is recorded.
inline constinit bool g_papi = false;  // trace mode counting PAPI events
// Polls (MPIDLE_POLL_SAMPLE): a thread times one, then skips a random number of
// them, uniform in [0, 2 × sample − 2] (mean sample − 1), so that no polling loop
// aliases with the sample. 1 (every poll) in trace mode.
inline constinit std::uint32_t g_poll_sample = 1;
[[gnu::tls_model("initial-exec")]] inline constinit thread_local std::uint32_t tls_poll_countdown =
    1;
[[gnu::tls_model("initial-exec")]] inline constinit thread_local std::uint64_t tls_poll_random =
    0x9e3779b97f4a7c15ull;
[[gnu::noinline]] inline std::uint32_t next_poll_gap() {
  std::uint64_t x = tls_poll_random;  // xorshift64
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  tls_poll_random = x;
  return 1 + static_cast<std::uint32_t>(x % (2 * std::uint64_t{g_poll_sample} - 1));
}
}  // namespace detail

// Whether this poll (Test family, Iprobe, Improbe) takes the untimed path: the
// outermost MPI call of its thread, recording, not tracing (a trace record needs
// its times), and not the one in MPIDLE_POLL_SAMPLE that is timed. Most polls: two
// loads, a thread-local test and a thread-local decrement.
[[gnu::always_inline]] inline bool untimed_poll() {
  if (detail::g_trace_open.load(std::memory_order_relaxed) ||
      !detail::g_recording.load(std::memory_order_relaxed) || detail::tls_in_mpi != 0)
    return false;
  if (__builtin_expect(--detail::tls_poll_countdown != 0, 1)) return true;
  detail::tls_poll_countdown = detail::g_poll_sample <= 1 ? 1 : detail::next_poll_gap();
  return false;
}

// The untimed path's MPI call: the re-entry guard set around it, as CallScope
// would (untimed_poll() saw it clear).
template <typename Real, typename... Args>
[[gnu::always_inline]] inline int call_unrecorded(MpiFn fn, Real real, Args... args) {
  detail::tls_in_mpi = detail::in_mpi_value(fn);
  const int rc = real(args...);
  detail::tls_in_mpi = 0;
  return rc;
}

// An untimed poll that completed nothing: one visit of its key (no time, no bytes).
[[gnu::always_inline]] inline void record_untimed_poll(MpiFn fn, void* return_address,
                                                       std::int32_t peer) {
  if (ThreadState* state = thread_state()) state->record_untimed_poll(fn, return_address, peer);
}

// Whether the current call records trace events (trace mode, or a window is open).
inline bool tracing() {
  return detail::tls_tracing;
}

class Call {
 public:
  [[gnu::always_inline]] Call(MpiFn fn, void* return_address)
      : m_fn(fn), m_return_address(return_address) {
    detail::tls_tracing = detail::g_trace_open.load(std::memory_order_relaxed);
    // Trace fields cost nothing in profile mode: set only when tracing.
    if (tracing()) m_trace = TraceInfo{};
  }
  // A poll that untimed_poll() left untimed and that completed something
  // (hooks::detail::complete_untimed_poll): never traced, no clock read.
  enum Untimed { untimed };
  [[gnu::always_inline]] Call(MpiFn fn, void* return_address, Untimed)
      : m_fn(fn), m_return_address(return_address), m_timed(false) {
    detail::tls_tracing = false;
  }

  // Inlined into every wrapper: the clock read must not sit behind a call.
  [[gnu::always_inline]] void start() {
    if (__builtin_expect(detail::g_papi, 0)) papi_start();
    m_start = now();
  }
  [[gnu::always_inline]] void stop() {
    m_stop = now();
    if (__builtin_expect(detail::g_papi, 0)) papi_stop();
    // Past the next window edge or checkpoint (call_edges.hpp): one comparison.
    if (__builtin_expect(m_stop >= detail::g_next_edge.load(std::memory_order_relaxed), 0)) {
      cross_edge(m_stop);
    }
  }
  // Filled by hooks in trace mode (ignored otherwise).
  TraceInfo& trace() { return m_trace; }

  void record(std::uint64_t bytes, std::int32_t peer) {
    record_as(static_cast<std::int16_t>(model::size_class(bytes)), bytes, peer);
  }
  // A collective (or another call whose cost depends on its communicator's shape).
  void record_on(std::uint64_t bytes, std::int32_t peer, std::int32_t comm_shape) {
    m_comm_shape = comm_shape;
    record(bytes, peer);
  }
  // A Test-family call or probe that completed nothing, timed or traced (an untimed
  // one never reaches its hook: the wrapper's untimed path records it). Out of
  // line, so that the hooks' inlined paths keep few registers.
  [[gnu::noinline]] void record_incomplete(std::int32_t peer) {
    record_as(static_cast<std::int16_t>(model::kSizeClassIncomplete), 0, peer);
  }
  // Trace mode: a further record of this call (a request it completed, the
  // receive half of a Sendrecv), with the call's times.
  [[gnu::noinline]] void trace_extra(const TraceInfo& info, std::int32_t peer,
                                     std::uint64_t bytes) {
    // The call's own record came first and made the thread's state: its
    // thread-local alone, so that no call (first_thread_state) sits in this path.
    ThreadState* state = detail::tls_thread_state;
    if (state == nullptr) return;
    trace_step<true>(state, info, peer, bytes, static_cast<std::int16_t>(model::size_class(bytes)));
  }

 private:
  // Out of line: only when counting PAPI events.
  [[gnu::noinline]] static void papi_start() {
    if (ThreadState* state = thread_state()) state->papi_call_start();
  }
  [[gnu::noinline]] static void papi_stop() {
    if (ThreadState* state = thread_state()) state->papi_call_end();
  }

  // Inlined: one table update per call, without a call of its own.
  [[gnu::always_inline]] void record_as(std::int16_t size_class, std::uint64_t bytes,
                                        std::int32_t peer) {
    ThreadState* state = thread_state();
    if (state == nullptr) return;
    m_site = state->record(m_fn, m_return_address, size_class, peer, m_comm_shape, bytes, m_start,
                           m_timed ? m_stop - m_start : kUntimed);
    if (tracing()) trace_record(state, size_class, bytes, peer);
  }
  // Out of line, with the call's own fields: four arguments where the record takes
  // nine, and profile mode's inlined path keeps its registers.
  [[gnu::noinline]] void trace_record(ThreadState* state, std::int16_t size_class,
                                      std::uint64_t bytes, std::int32_t peer) {
    trace_step<false>(state, m_trace, peer, bytes, size_class);
  }
  // The chunk's room taken inline; a new chunk, the window's limit and PAPI in
  // calls made last, so that the common path saves no registers.
  template <bool kExtra>
  [[gnu::always_inline]] void trace_step(ThreadState* state, const TraceInfo& info,
                                         std::int32_t peer, std::uint64_t bytes,
                                         std::int16_t size_class) {
    switch (state->trace_in_chunk(m_fn, m_site, m_start, m_stop, peer, bytes, info, kExtra,
                                  size_class)) {
      case ThreadState::TraceStep::done:
        return;
      case ThreadState::TraceStep::no_room:
        return trace_rare<kExtra>(state, info, peer, bytes, size_class);
      case ThreadState::TraceStep::tail:
        return state->trace_tail(kExtra);
    }
  }
  template <bool kExtra>
  [[gnu::noinline]] void trace_rare(ThreadState* state, const TraceInfo& info, std::int32_t peer,
                                    std::uint64_t bytes, std::int16_t size_class) {
    state->trace(m_fn, m_site, m_start, m_stop, peer, bytes, info, kExtra, size_class);
  }

  MpiFn m_fn;
  void* m_return_address;
  std::uintptr_t m_site = 0;
  std::int32_t m_comm_shape = 0;
  bool m_timed = true;
  Ticks m_start = 0;
  Ticks m_stop = 0;
  union {  // a union so that profile mode skips its initialization
    TraceInfo m_trace;
  };
};

}  // namespace mpidle::profiler
