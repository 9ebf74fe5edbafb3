#pragma once
// Chrome Trace Event format (JSON) of a synchronized trace, for Perfetto UI and
// chrome://tracing: one process per rank (pid = rank), MPI calls and the compute
// bursts between them as complete slices, and a flow arrow from every send to its
// receive. Timestamps are the synchronized ones (µs from the run's first event).
// A large trace makes a JSON file too large for the viewers (4 M events: 764 MB):
// a selection of ranks and a time window keep it to what is looked at.

#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>

#include "model/trace_file.hpp"

namespace mpidle::report {

struct ChromeExportStats {
  std::uint64_t slices = 0;
  std::uint64_t flows = 0;
  bool synchronized = true;  // false: raw local clocks (the trace was never synchronized)
};

struct ChromeSelection {
  std::optional<std::set<std::int32_t>> ranks;  // all when empty
  // Seconds from the run's first event: slices that overlap [from, to) are kept.
  double from_s = 0, to_s = 1e300;
};

// "0-3,8,12-15": the ranks; nothing (and `error` set) for anything else.
std::optional<std::set<std::int32_t>> parse_rank_list(const std::string& text, std::string& error);

// Ranks the selection leaves out may have no records (read_trace_ranks): arrows
// are drawn between selected ranks only.
ChromeExportStats write_chrome_trace(const model::Trace& trace, std::ostream& out,
                                     const ChromeSelection& selection = {});

}  // namespace mpidle::report
