#include "chrome_export.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "model/json_fields.hpp"
#include "sync/trace_sync.hpp"
#include "trace_times.hpp"

namespace mpidle::report {
namespace {

using model::TraceRole;

// The receiving end of a point-to-point message (collectives' edges end elsewhere).
bool is_receive(const model::TraceRecord& r) {
  return r.role == TraceRole::recv || (r.role == TraceRole::completion && r.collective_kind == 0);
}

class Writer {
 public:
  Writer(const model::Trace& trace, std::ostream& out)
      : m_trace(trace), m_out(out), m_times(trace), m_t0(m_times.first()) {
    for (const auto& c : trace.callsites) {
      m_locations.push_back(nlohmann::json(model::innermost_location(c.frames)).dump());
    }
    for (const auto& f : trace.functions) m_names.push_back(nlohmann::json(f).dump());
  }

  ChromeExportStats write() {
    m_out << "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"producer\": \"mpidle export\", "
             "\"clock\": \""
          << (m_times.synchronized() ? "synchronized" : "raw local")
          << "\"},\n\"traceEvents\": [\n";
    for (std::size_t i = 0; i < m_trace.ranks.size(); ++i) write_rank(i);
    write_flows();
    m_out << "\n]}\n";
    return {m_slices, m_flows, m_times.synchronized()};
  }

 private:
  std::int64_t time(std::size_t i, std::size_t k, bool exit) const {
    return m_times.time(i, k, exit);
  }

  // A time on the timeline, and a duration, in µs.
  std::string us(std::int64_t ns) const { return duration_us(ns - m_t0); }
  static std::string duration_us(std::int64_t ns) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) * 1e-3);
    return buf;
  }

  void separator() {
    if (!m_first) m_out << ",\n";
    m_first = false;
  }

  void write_rank(std::size_t i) {
    const auto& rank = m_trace.ranks[i];
    separator();
    m_out << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << rank.rank
          << ", \"args\": {\"name\": \"rank " << rank.rank << "\"}},\n"
          << "{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": " << rank.rank
          << ", \"args\": {\"sort_index\": " << rank.rank << "}}";
    bool have_previous = false;
    std::int64_t previous_exit = 0;
    for (std::size_t k = 0; k < rank.records.size(); ++k) {
      const auto& rec = rank.records[k];
      if (rec.extra != 0) continue;  // a further record of the call before it
      const std::int64_t enter = time(i, k, false), exit = std::max(enter, time(i, k, true));
      if (have_previous && enter > previous_exit) {
        separator();
        m_out << "{\"ph\": \"X\", \"cat\": \"compute\", \"name\": \"compute\", \"pid\": "
              << rank.rank << ", \"tid\": 0, \"ts\": " << us(previous_exit)
              << ", \"dur\": " << duration_us(enter - previous_exit) << "}";
        ++m_slices;
      }
      separator();
      m_out << "{\"ph\": \"X\", \"cat\": \"mpi\", \"name\": "
            << (rec.function < m_names.size() ? m_names[rec.function] : "\"?\"")
            << ", \"pid\": " << rank.rank << ", \"tid\": 0, \"ts\": " << us(enter)
            << ", \"dur\": " << duration_us(exit - enter) << ", \"args\": {\"callsite\": "
            << (rec.callsite < m_locations.size() ? m_locations[rec.callsite] : "\"?\"");
      if (rec.peer >= 0) m_out << ", \"peer\": " << rec.peer;
      if (rec.bytes > 0) m_out << ", \"bytes\": " << rec.bytes;
      if (rec.tag >= 0 && rec.role != TraceRole::collective) m_out << ", \"tag\": " << rec.tag;
      m_out << "}}";
      ++m_slices;
      previous_exit = have_previous ? std::max(previous_exit, exit) : exit;
      have_previous = true;
    }
  }

  // The slice a record belongs to: a further record (extra) is part of the call
  // before it.
  std::size_t call_of(std::size_t i, std::size_t k) const {
    while (k > 0 && m_trace.ranks[i].records[k].extra != 0) --k;
    return k;
  }

  void write_flows() {
    const auto graph = sync::build_event_graph(m_trace);
    std::vector<std::size_t> first(m_trace.ranks.size() + 1, 0);
    for (std::size_t i = 0; i < m_trace.ranks.size(); ++i) {
      first[i + 1] = first[i] + 2 * m_trace.ranks[i].records.size();
    }
    auto locate = [&](sync::EventGraph::NodeId n) {
      const auto at = std::upper_bound(first.begin(), first.end(), n) - first.begin() - 1;
      const auto i = static_cast<std::size_t>(at);
      return std::pair{i, (n - first[i]) / 2};
    };
    for (const auto& e : graph.edges()) {
      if (!e.message || graph.is_hub(e.from) || graph.is_hub(e.to)) continue;
      const auto [si, sk] = locate(e.from);
      const auto [ri, rk] = locate(e.to);
      if (!is_receive(m_trace.ranks[ri].records[rk])) continue;
      const std::size_t sc = call_of(si, sk), rc = call_of(ri, rk);
      const std::int64_t start = time(si, sc, false);
      const std::int64_t recv_enter = time(ri, rc, false);
      const std::int64_t recv_exit = std::max(recv_enter, time(ri, rc, true));
      // Inside the receiving slice, so that the arrow binds to it.
      const std::int64_t end = recv_exit - recv_enter >= 2 ? recv_exit - 1 : recv_enter;
      ++m_flows;
      separator();
      m_out << "{\"ph\": \"s\", \"cat\": \"message\", \"name\": \"message\", \"id\": " << m_flows
            << ", \"pid\": " << m_trace.ranks[si].rank << ", \"tid\": 0, \"ts\": " << us(start)
            << "},\n{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"message\", \"name\": \"message\", "
               "\"id\": "
            << m_flows << ", \"pid\": " << m_trace.ranks[ri].rank
            << ", \"tid\": 0, \"ts\": " << us(end) << "}";
    }
  }

  const model::Trace& m_trace;
  std::ostream& m_out;
  const TraceTimes m_times;
  const std::int64_t m_t0;  // the run's first event: time 0 of the timeline
  bool m_first = true;
  std::vector<std::string> m_locations;  // JSON strings, by callsite
  std::vector<std::string> m_names;      // JSON strings, by function
  std::uint64_t m_slices = 0;
  std::uint64_t m_flows = 0;
};

}  // namespace

ChromeExportStats write_chrome_trace(const model::Trace& trace, std::ostream& out) {
  return Writer(trace, out).write();
}

}  // namespace mpidle::report
