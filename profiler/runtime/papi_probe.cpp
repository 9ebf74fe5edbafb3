#include "profiler/runtime/papi_probe.hpp"

#include <papi.h>

namespace mpidle::profiler {

PapiStatus probe_papi(const std::string& comma_separated_events) {
  PapiStatus s;
  s.events = papi_event_names(comma_separated_events);
  if (s.events.empty()) return s;
  const int version = PAPI_library_init(PAPI_VER_CURRENT);
  if (version != PAPI_VER_CURRENT) {
    s.reason = "PAPI could not start (PAPI_library_init returned " + std::to_string(version) + ")";
    return s;
  }
  const PAPI_component_info_t* cpu = PAPI_get_component_info(0);
  if (cpu == nullptr || cpu->num_cntrs <= 0 || cpu->disabled) {
    s.reason = "this machine has no hardware counters (PAPI reports 0)";
    if (cpu && cpu->disabled) s.reason += std::string(": ") + cpu->disabled_reason;
    return s;
  }
  for (const auto& name : s.events) {
    int code = 0;
    if (PAPI_event_name_to_code(name.c_str(), &code) != PAPI_OK) {
      s.reason = "PAPI does not know the event " + name;
      return s;
    }
    if (PAPI_query_event(code) != PAPI_OK) {
      s.reason = "PAPI cannot count " + name + " here (no hardware counter for it)";
      return s;
    }
  }
  if (s.events.size() > 8) {
    s.reason = "at most 8 PAPI events at a time";
    return s;
  }
  s.available = true;
  return s;
}

}  // namespace mpidle::profiler
