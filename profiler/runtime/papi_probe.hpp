#pragma once
// Whether PAPI can count the requested events here. Machines without hardware
// counters (VMs, containers) are common: the run goes on and the trace says why
// it carries no counters.

#include <string>
#include <vector>

namespace mpidle::profiler {

struct PapiStatus {
  std::vector<std::string> events;  // as requested
  bool available = false;
  std::string reason;  // why not, when not
};

PapiStatus probe_papi(const std::string& comma_separated_events);

// The events of MPIDLE_PAPI_EVENTS, in order, empty names dropped.
inline std::vector<std::string> papi_event_names(const std::string& comma_separated_events) {
  std::vector<std::string> events;
  std::string::size_type at = 0;
  while (at <= comma_separated_events.size()) {
    const auto comma = comma_separated_events.find(',', at);
    const auto end = comma == std::string::npos ? comma_separated_events.size() : comma;
    if (end > at) events.push_back(comma_separated_events.substr(at, end - at));
    at = end + 1;
  }
  return events;
}

}  // namespace mpidle::profiler
