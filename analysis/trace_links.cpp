#include "trace_links.hpp"

#include "model/function_catalog.hpp"
#include "prediction.hpp"

namespace mpidle::analysis {

using model::TraceRole;

std::uint64_t TraceLinks::instance_of(std::uint32_t rank, std::uint64_t record) const {
  auto it = as_instance[rank].find(record);
  return it == as_instance[rank].end() ? kNone : it->second;
}

TraceLinks link_trace(const model::Trace& trace, const sync::TraceMatching& matching) {
  TraceLinks l;
  const std::size_t n = trace.ranks.size();
  for (const auto& f : trace.functions) l.polling.push_back(model::is_poll(f) ? 1 : 0);
  auto polls = [&](const model::TraceRecord& rec) { return l.polling[rec.function] != 0; };
  l.as_send.resize(n);
  l.as_receive.resize(n);
  l.as_instance.resize(n);
  l.member.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t records = trace.ranks[r].records.size();
    l.as_send[r].assign(records, TraceLinks::kNone);
    l.as_receive[r].assign(records, TraceLinks::kNone);
  }
  const auto& messages = matching.messages;
  l.bytes.assign(messages.size(), 0);
  l.blocking_ends.assign(messages.size(), 0);
  // Isend requests complete in a later record that names the same serial.
  std::vector<std::unordered_map<std::uint32_t, std::uint64_t>> isend_by_serial(n);
  for (std::uint64_t m = 0; m < messages.size(); ++m) {
    const auto& msg = messages[m];
    l.as_send[msg.send.rank][msg.send.record] = m;
    l.as_receive[msg.receive.rank][msg.receive.record] = m;
    l.as_receive[msg.posted.rank][msg.posted.record] = m;
    const auto& send = trace.ranks[msg.send.rank].records[msg.send.record];
    l.bytes[m] = message_bytes(trace, msg);
    if (send.role == TraceRole::isend && send.sequence != 0) {
      isend_by_serial[msg.send.rank][send.sequence] = m;
    }
    const auto& received = trace.ranks[msg.receive.rank].records[msg.receive.record];
    l.blocking_ends[m] = send.role == TraceRole::send && !polls(received) ? 1 : 0;
  }
  for (std::size_t r = 0; r < n; ++r) {
    if (isend_by_serial[r].empty()) continue;
    const auto& records = trace.ranks[r].records;
    for (std::uint64_t i = 0; i < records.size(); ++i) {
      const auto& rec = records[i];
      if (rec.role != TraceRole::completion || rec.collective_kind != 0) continue;
      if (l.as_receive[r][i] != TraceLinks::kNone) continue;
      auto it = isend_by_serial[r].find(rec.sequence);
      if (it == isend_by_serial[r].end()) continue;
      l.as_send[r][i] = it->second;
      const auto& msg = messages[it->second];
      const auto& received = trace.ranks[msg.receive.rank].records[msg.receive.record];
      l.blocking_ends[it->second] = !polls(rec) && !polls(received) ? 1 : 0;
    }
  }
  for (std::uint64_t c = 0; c < matching.collectives.size(); ++c) {
    const auto& match = matching.collectives[c];
    if (!match.complete()) continue;  // constrains nothing: its calls keep their time
    for (std::uint32_t k = 0; k < match.members.size(); ++k) {
      const auto& member = match.members[k];
      for (const auto& ref : {member.enter, member.exit}) {
        l.as_instance[ref.rank][ref.record] = c;
        l.member[ref.rank][ref.record] = k;
      }
    }
  }
  return l;
}

}  // namespace mpidle::analysis
