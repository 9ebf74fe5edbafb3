#include "profiler/runtime/papi_counters.hpp"

#include <papi.h>
#include <pthread.h>

namespace mpidle::profiler {

bool papi_threads_ready() {
  static const bool ready = [] {
    if (PAPI_is_initialized() == PAPI_NOT_INITED &&
        PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
      return false;
    }
    return PAPI_thread_init(pthread_self) == PAPI_OK;
  }();
  return ready;
}

PapiCounters::PapiCounters(const std::vector<std::string>& events) {
  if (events.empty() || events.size() > kMaxEvents || !papi_threads_ready()) return;
  if (PAPI_create_eventset(&m_event_set) != PAPI_OK) return;
  for (const auto& name : events) {
    int code = 0;
    if (PAPI_event_name_to_code(name.c_str(), &code) != PAPI_OK ||
        PAPI_add_event(m_event_set, code) != PAPI_OK) {
      PAPI_cleanup_eventset(m_event_set);
      PAPI_destroy_eventset(&m_event_set);
      m_event_set = -1;
      return;
    }
  }
  if (PAPI_start(m_event_set) != PAPI_OK) return;
  m_count = events.size();
  mark_end();
}

PapiCounters::~PapiCounters() {
  if (m_event_set < 0) return;
  long long ignored[kMaxEvents];
  if (m_count > 0) PAPI_stop(m_event_set, ignored);
  PAPI_cleanup_eventset(m_event_set);
  PAPI_destroy_eventset(&m_event_set);
}

void PapiCounters::burst_into(std::vector<std::int64_t>& out) {
  if (m_count == 0) return;
  if (PAPI_read(m_event_set, m_now) != PAPI_OK) {
    for (std::size_t i = 0; i < m_count; ++i) out.push_back(-1);
    return;
  }
  for (std::size_t i = 0; i < m_count; ++i) out.push_back(m_now[i] - m_at_end[i]);
}

void PapiCounters::mark_end() {
  if (m_count > 0 && PAPI_read(m_event_set, m_at_end) != PAPI_OK) {
    for (auto& v : m_at_end) v = 0;
  }
}

}  // namespace mpidle::profiler
