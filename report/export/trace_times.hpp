#pragma once
// A trace's times as the exporters read them: the synchronized ones where every
// rank has them, else the raw local clocks, and the run's first event.

#include <algorithm>
#include <cstdint>
#include <limits>

#include "model/trace_file.hpp"

namespace mpidle::report {

class TraceTimes {
 public:
  explicit TraceTimes(const model::Trace& trace) : m_trace(trace) {
    for (const auto& r : trace.ranks) {
      if (r.synced.size() != 2 * r.records.size()) m_synchronized = false;
    }
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < trace.ranks.size(); ++i) {
      if (!trace.ranks[i].records.empty()) first = std::min(first, time(i, 0, false));
    }
    m_first = first == std::numeric_limits<std::int64_t>::max() ? 0 : first;
  }

  // False: some rank was never synchronized, and every time is a raw local one.
  bool synchronized() const { return m_synchronized; }
  // Enter (false) or exit (true) of record k of the rank at position i, in ns.
  std::int64_t time(std::size_t i, std::size_t k, bool exit) const {
    const auto& r = m_trace.ranks[i];
    if (m_synchronized) return r.synced[2 * k + (exit ? 1 : 0)];
    return exit ? r.records[k].exit_ns : r.records[k].enter_ns;
  }
  // The earliest first enter of any rank (0 for a trace without records).
  std::int64_t first() const { return m_first; }

 private:
  const model::Trace& m_trace;
  bool m_synchronized = true;
  std::int64_t m_first = 0;
};

}  // namespace mpidle::report
