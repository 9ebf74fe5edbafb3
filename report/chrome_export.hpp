#pragma once
// Chrome Trace Event format (JSON) of a synchronized trace, for Perfetto UI and
// chrome://tracing: one process per rank (pid = rank), MPI calls and the compute
// bursts between them as complete slices, and a flow arrow from every send to its
// receive. Timestamps are the synchronized ones (µs from the run's first event).

#include <cstdint>
#include <ostream>

#include "model/trace_file.hpp"

namespace mpidle::report {

struct ChromeExportStats {
  std::uint64_t slices = 0;
  std::uint64_t flows = 0;
  bool synchronized = true;  // false: raw local clocks (the trace was never synchronized)
};

ChromeExportStats write_chrome_trace(const model::Trace& trace, std::ostream& out);

}  // namespace mpidle::report
