#pragma once
// One intercepted call: its two clock reads and its single table update.

#include <cstdint>

#include "clock.hpp"
#include "context.hpp"
#include "model/profile_tables.hpp"
#include "mpi_fn.hpp"

namespace mpidle::profiler {

class Call {
 public:
  Call(MpiFn fn, void* return_address) : m_fn(fn), m_return_address(return_address) {}

  void start() { m_start = now(); }
  void stop() { m_stop = now(); }

  void record(std::uint64_t bytes, std::int32_t peer) {
    record_as(static_cast<std::int16_t>(model::size_class(bytes)), bytes, peer);
  }
  // A Test-family call that completed nothing.
  void record_incomplete(std::int32_t peer) {
    record_as(static_cast<std::int16_t>(model::kSizeClassIncomplete), 0, peer);
  }

 private:
  void record_as(std::int16_t size_class, std::uint64_t bytes, std::int32_t peer) {
    ThreadState* state = thread_state();
    if (state == nullptr) return;
    state->record(m_fn, m_return_address, size_class, peer, bytes, m_start, m_stop - m_start);
  }

  MpiFn m_fn;
  void* m_return_address;
  Ticks m_start = 0;
  Ticks m_stop = 0;
};

}  // namespace mpidle::profiler
