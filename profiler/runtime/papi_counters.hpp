#pragma once
// Trace mode with MPIDLE_PAPI_EVENTS: one PAPI event set per thread, read around
// every call, so that each record carries what the compute burst before it
// counted (the difference between this call's start and the previous call's end).

#include <cstdint>
#include <string>
#include <vector>

namespace mpidle::profiler {

class PapiCounters {
 public:
  // Empty (count() == 0) when PAPI cannot count these events on this thread.
  explicit PapiCounters(const std::vector<std::string>& events);
  ~PapiCounters();
  PapiCounters(const PapiCounters&) = delete;
  PapiCounters& operator=(const PapiCounters&) = delete;

  std::size_t count() const { return m_count; }

  // At a call's start: appends the burst since the previous call's end.
  void burst_into(std::vector<std::int64_t>& out);
  // At a call's end.
  void mark_end();

 private:
  static constexpr std::size_t kMaxEvents = 8;
  int m_event_set = -1;
  std::size_t m_count = 0;
  long long m_at_end[kMaxEvents] = {};
  long long m_now[kMaxEvents] = {};
};

// Once per process, before threads create their event sets.
bool papi_threads_ready();

}  // namespace mpidle::profiler
