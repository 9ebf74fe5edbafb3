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

}  // namespace mpidle::profiler
