// Membership, the replay's first phase: each rank's matching items, who takes
// part in which communicator's collectives (counted at the communicator's home),
// and where the items for each of this process' ranks will land.

#include "parallel_sync_state.hpp"

namespace mpidle::sync {

void ParallelSync::Impl::start() {
  for (auto& r : ranks) {
    r.items = scan_rank(*r.trace, r.position);
    index(r);
    stats.unmatched_receives += r.items.unknown_source_receives;
    stats.cancelled += r.items.cancelled;
    std::vector<std::uint32_t> comms;
    for (const auto& c : r.items.collectives) comms.push_back(c.comm);
    std::sort(comms.begin(), comms.end());
    comms.erase(std::unique(comms.begin(), comms.end()), comms.end());
    for (auto comm : comms) {
      ReplayItem item;
      item.type = ReplayItemType::member;
      item.comm = comm;
      item.source = r.world;
      post(home_of(comm), item);
    }
    for (const auto& [key, sends] : r.items.sends) {
      ReplayItem item;
      item.type = ReplayItemType::channel_count;
      std::tie(item.comm, item.source, item.destination, item.tag) = key;
      item.number = sends.size();
      const int to = dir.process_of(item.destination);
      if (to < 0) stats.unmatched_sends += sends.size();
      post(to, item);
    }
  }
}

void ParallelSync::Impl::index(RankState& r) {
  for (const auto& [key, receives] : r.items.receives) {
    r.receive_index.emplace(key, static_cast<std::uint32_t>(r.receive_keys.size()));
    r.receive_keys.push_back(key);
  }
  r.arrived.resize(r.receive_keys.size());
  r.check_arrived.resize(r.receive_keys.size());
  for (const auto& [key, sends] : r.items.sends) {
    r.send_index.emplace(key, static_cast<std::uint32_t>(r.send_keys.size()));
    r.send_keys.push_back(key);
    auto& events = r.send_events.emplace_back();
    for (const auto& call : sends) events.push_back(2 * call.record);
  }
  for (std::uint32_t i = 0; i < r.items.collectives.size(); ++i) {
    const auto& c = r.items.collectives[i];
    r.collective_index.emplace(InstanceKey{c.comm, c.instance}, i);
  }
  r.posted_back.resize(r.send_keys.size());
  for (std::size_t idx = 0; idx < r.send_keys.size(); ++idx) {
    r.posted_back[idx].assign(r.send_events[idx].size(), kNever);
  }
  r.until.assign(r.items.collectives.size(), kNever);
  r.reply.assign(r.items.collectives.size(), kNever);
  r.replied.assign(r.items.collectives.size(), 0);
  r.check_reply.assign(r.items.collectives.size(), kNoCause);
  r.check_replied.assign(r.items.collectives.size(), 0);
  const std::uint64_t n = r.events();
  r.lc.assign(n, kNever);
}

}  // namespace mpidle::sync
