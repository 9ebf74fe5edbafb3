#include "report/export/chrome_export.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "model/json_fields.hpp"
#include "report/export/trace_times.hpp"
#include "sync/trace_sync.hpp"

namespace mpidle::report {
namespace {

using model::TraceRole;

// The receiving end of a point-to-point message (collectives' edges end elsewhere).
bool is_receive(const model::TraceRecord& r) {
  return r.role == TraceRole::recv || (r.role == TraceRole::completion && r.collective_kind == 0);
}

class Writer {
 public:
  Writer(const model::Trace& trace, std::ostream& out, const ChromeSelection& selection)
      : m_trace(trace),
        m_out(out),
        m_selection(selection),
        m_times(trace),
        m_t0(m_times.first()),
        m_from(m_t0 + to_ns(selection.from_s)),
        m_to(selection.to_s >= 1e9 ? INT64_MAX : m_t0 + to_ns(selection.to_s)) {
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
    for (std::size_t i = 0; i < m_trace.ranks.size(); ++i) {
      if (selected(m_trace.ranks[i].rank)) write_rank(i);
    }
    write_flows();
    m_out << "\n]}\n";
    return {m_slices, m_flows, m_times.synchronized()};
  }

 private:
  static std::int64_t to_ns(double s) {
    return static_cast<std::int64_t>(std::clamp(s, -1e9, 1e9) * 1e9);
  }
  bool selected(std::int32_t rank) const {
    return !m_selection.ranks || m_selection.ranks->count(rank) > 0;
  }
  bool in_window(std::int64_t from, std::int64_t to) const { return to >= m_from && from < m_to; }

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
    // Metadata events carry a category and a thread too: some trace-model
    // libraries refuse events without them.
    m_out << "{\"ph\": \"M\", \"cat\": \"__metadata\", \"name\": \"process_name\", \"pid\": "
          << rank.rank << ", \"tid\": 0, \"args\": {\"name\": \"rank " << rank.rank << "\"}},\n"
          << "{\"ph\": \"M\", \"cat\": \"__metadata\", \"name\": \"process_sort_index\", "
             "\"pid\": "
          << rank.rank << ", \"tid\": 0, \"args\": {\"sort_index\": " << rank.rank << "}},\n"
          << "{\"ph\": \"M\", \"cat\": \"__metadata\", \"name\": \"thread_name\", \"pid\": "
          << rank.rank << ", \"tid\": 0, \"args\": {\"name\": \"MPI calls\"}}";
    bool have_previous = false;
    std::int64_t previous_exit = 0;
    for (std::size_t k = 0; k < rank.records.size(); ++k) {
      const auto& rec = rank.records[k];
      if (rec.extra != 0) continue;  // a further record of the call before it
      const std::int64_t enter = time(i, k, false), exit = std::max(enter, time(i, k, true));
      if (have_previous && enter > previous_exit && in_window(previous_exit, enter)) {
        separator();
        m_out << "{\"ph\": \"X\", \"cat\": \"compute\", \"name\": \"compute\", \"pid\": "
              << rank.rank << ", \"tid\": 0, \"ts\": " << us(previous_exit)
              << ", \"dur\": " << duration_us(enter - previous_exit) << "}";
        ++m_slices;
      }
      previous_exit = have_previous ? std::max(previous_exit, exit) : exit;
      have_previous = true;
      if (!in_window(enter, exit)) continue;
      separator();
      m_out << "{\"ph\": \"X\", \"cat\": \"mpi\", \"name\": "
            << (rec.function < m_names.size() ? m_names[rec.function] : "\"?\"")
            << ", \"pid\": " << rank.rank << ", \"tid\": 0, \"ts\": " << us(enter)
            << ", \"dur\": " << duration_us(exit - enter) << ", \"args\": {\"callsite\": "
            << (rec.callsite < m_locations.size() ? m_locations[rec.callsite] : "\"?\"");
      if (rec.peer >= 0) m_out << ", \"peer\": " << rec.peer;
      if (rec.bytes > 0) m_out << ", \"bytes\": " << rec.bytes;
      const bool collective =
          rec.role == TraceRole::collective || rec.role == TraceRole::icollective;
      if (rec.tag >= 0 && !collective) m_out << ", \"tag\": " << rec.tag;
      m_out << "}}";
      ++m_slices;
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
      if (!selected(m_trace.ranks[si].rank) || !selected(m_trace.ranks[ri].rank)) continue;
      if (!is_receive(m_trace.ranks[ri].records[rk])) continue;
      const std::size_t sc = call_of(si, sk), rc = call_of(ri, rk);
      const std::int64_t start = time(si, sc, false);
      const std::int64_t recv_enter = time(ri, rc, false);
      const std::int64_t recv_exit = std::max(recv_enter, time(ri, rc, true));
      // Both ends' slices must be in the file.
      if (!in_window(start, time(si, sc, true)) || !in_window(recv_enter, recv_exit)) continue;
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
  const ChromeSelection& m_selection;
  const TraceTimes m_times;
  const std::int64_t m_t0;          // the run's first event: time 0 of the timeline
  const std::int64_t m_from, m_to;  // the window, on the timeline's clock
  bool m_first = true;
  std::vector<std::string> m_locations;  // JSON strings, by callsite
  std::vector<std::string> m_names;      // JSON strings, by function
  std::uint64_t m_slices = 0;
  std::uint64_t m_flows = 0;
};

}  // namespace

ChromeExportStats write_chrome_trace(const model::Trace& trace, std::ostream& out,
                                     const ChromeSelection& selection) {
  return Writer(trace, out, selection).write();
}

std::optional<std::set<std::int32_t>> parse_rank_list(const std::string& text, std::string& error) {
  std::set<std::int32_t> ranks;
  auto number = [](const std::string& s, std::int32_t& out) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      return false;
    out = static_cast<std::int32_t>(std::stol(s));
    return true;
  };
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const std::size_t dash = item.find('-');
    std::int32_t first = 0, last = 0;
    const bool ok = dash == std::string::npos
                        ? number(item, first) && number(item, last)
                        : number(item.substr(0, dash), first) &&
                              number(item.substr(dash + 1), last) && first <= last;
    if (!ok || static_cast<std::int64_t>(last) - first >= 10'000'000) {
      error = "ranks are a list like 0-3,8,12-15";
      return std::nullopt;
    }
    for (std::int32_t r = first; r <= last; ++r) ranks.insert(r);
    at = comma + 1;
  }
  return ranks;
}

}  // namespace mpidle::report
