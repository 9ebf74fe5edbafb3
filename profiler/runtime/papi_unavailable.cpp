// PAPI support for a libmpidle built without PAPI: every request for counters is
// answered with why there are none, and the run goes on.
#include "profiler/runtime/papi_counters.hpp"
#include "profiler/runtime/papi_probe.hpp"

namespace mpidle::profiler {

PapiStatus probe_papi(const std::string& comma_separated_events) {
  PapiStatus s;
  s.events = papi_event_names(comma_separated_events);
  if (!s.events.empty()) s.reason = "this libmpidle was built without PAPI";
  return s;
}

bool papi_threads_ready() {
  return false;
}

PapiCounters::PapiCounters(const std::vector<std::string>&) {}
PapiCounters::~PapiCounters() = default;
void PapiCounters::burst_into(std::vector<std::int64_t>&) {}
void PapiCounters::mark_end() {}

}  // namespace mpidle::profiler
