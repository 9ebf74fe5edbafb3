#include "replay_network.hpp"

#include <algorithm>
#include <utility>

namespace mpidle::sync {

ReplayTally combine(const ReplayTally& a, const ReplayTally& b) {
  ReplayTally t;
  t.sent = a.sent + b.sent;
  t.received = a.received + b.received;
  t.unfinished = a.unfinished + b.unfinished;
  const bool a_first = std::pair(a.blocked_time, a.blocked_position) <=
                       std::pair(b.blocked_time, b.blocked_position);
  t.blocked_time = a_first ? a.blocked_time : b.blocked_time;
  t.blocked_position = a_first ? a.blocked_position : b.blocked_position;
  const ReplayStats &x = a.stats, &y = b.stats;
  ReplayStats& s = t.stats;
  s.violations_raw = x.violations_raw + y.violations_raw;
  s.violations_before = x.violations_before + y.violations_before;
  s.violations_after = x.violations_after + y.violations_after;
  s.events_moved = x.events_moved + y.events_moved;
  s.unresolved = x.unresolved + y.unresolved;
  s.messages = x.messages + y.messages;
  s.unmatched_sends = x.unmatched_sends + y.unmatched_sends;
  s.unmatched_receives = x.unmatched_receives + y.unmatched_receives;
  s.cancelled = x.cancelled + y.cancelled;
  s.complete_collectives = x.complete_collectives + y.complete_collectives;
  s.collective_rounds = std::max(x.collective_rounds, y.collective_rounds);
  s.events = x.events + y.events;
  s.intervals = x.intervals + y.intervals;
  s.max_shift_ns = std::max(x.max_shift_ns, y.max_shift_ns);
  s.shift_sum_ns = x.shift_sum_ns + y.shift_sum_ns;
  s.interval_change_sum_ns = x.interval_change_sum_ns + y.interval_change_sum_ns;
  s.min_gap_raw_ns = std::min(x.min_gap_raw_ns, y.min_gap_raw_ns);
  s.min_gap_corrected_ns = std::min(x.min_gap_corrected_ns, y.min_gap_corrected_ns);
  return t;
}

class LoopbackNetwork : public ReplayNetwork {
 public:
  LoopbackNetwork(Loopback& all, int self) : m_all(all), m_self(self) {}
  int processes() const override { return m_all.m_processes; }
  int self() const override { return m_self; }
  void send(int process, std::vector<ReplayItem>&& batch) override {
    m_all.m_inbox[static_cast<std::size_t>(process)].push_back(std::move(batch));
  }
  bool receive(std::vector<ReplayItem>& batch) override {
    auto& inbox = m_all.m_inbox[static_cast<std::size_t>(m_self)];
    if (inbox.empty()) return false;
    batch = std::move(inbox.front());
    inbox.pop_front();
    return true;
  }
  void start_reduction(const ReplayTally& tally) override {
    auto& round = m_all.m_rounds[m_round];
    round.total = round.contributed == 0 ? tally : combine(round.total, tally);
    ++round.contributed;
  }
  bool reduction_done(ReplayTally& out) override {
    auto it = m_all.m_rounds.find(m_round);
    if (it == m_all.m_rounds.end() || it->second.contributed < m_all.m_processes) return false;
    out = it->second.total;
    if (++it->second.collected == m_all.m_processes) m_all.m_rounds.erase(it);
    ++m_round;
    return true;
  }

 private:
  Loopback& m_all;
  int m_self;
  std::uint64_t m_round = 0;
};

Loopback::Loopback(int processes) : m_processes(processes), m_inbox(processes) {
  for (int p = 0; p < processes; ++p) {
    m_networks.push_back(std::make_unique<LoopbackNetwork>(*this, p));
  }
}

}  // namespace mpidle::sync
