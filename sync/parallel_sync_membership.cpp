// Membership, the replay's first phase: each rank's matching items, who takes
// part in which communicator's collectives (numbered block by block, which gives
// each member its place in the communicator's tree),
// and where the items for each of this process' ranks will land.

#include <map>

#include "parallel_sync_state.hpp"

namespace mpidle::sync {

void ParallelSync::Impl::start() {
  for (auto& r : ranks) {
    r.items = scan_rank(*r.trace, r.position);
    index(r);
    stats.unmatched_receives += r.items.unknown_source_receives;
    stats.cancelled += r.items.cancelled;
    // Each communicator the rank has collectives on, with its rank there if a scan
    // says it (the tree is then numbered in that order).
    std::map<std::uint32_t, std::int32_t> order_in;
    for (const auto& c : r.items.collectives) {
      const bool scan = model::is_scan(c.kind);
      auto [it, fresh] = order_in.try_emplace(c.comm, scan ? c.member.order : -1);
      if (!fresh && scan && it->second < 0) it->second = c.member.order;
    }
    const int bits = block_bits();
    for (const auto& [comm, order] : order_in) {
      ReplayItem item;
      item.type = ReplayItemType::member;
      item.comm = comm;
      item.source = r.world;
      item.order = order >= 0 ? order : r.world;  // what the numbering sorts by
      item.tag = item.order >> bits;              // its block
      post(block_home_of(comm, item.tag), item);
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
  r.complete.assign(r.items.collectives.size(), 0);
  r.reply.assign(r.items.collectives.size(), kNever);
  r.replied.assign(r.items.collectives.size(), 0);
  r.check_reply.assign(r.items.collectives.size(), kNoCause);
  r.check_replied.assign(r.items.collectives.size(), 0);
  const std::uint64_t n = r.events();
  r.lc.assign(n, kNever);
}

void ParallelSync::Impl::place_blocks() {
  for (auto& [comm, list] : blocks) {
    std::sort(list.begin(), list.end());
    std::int64_t size = 0;
    for (const auto& b : list) size += b[1];
    for (std::size_t j = 0; j < list.size(); ++j) {
      ReplayItem item;
      item.type = ReplayItemType::block_place;
      item.comm = comm;
      item.order = list[j][0];
      item.number = static_cast<std::uint64_t>(size);
      item.root = j == 0 ? -1 : list[binomial_parent(j)][2];  // the parent block's first member
      post(block_home_of(comm, item.order), item);
    }
  }
  blocks.clear();
}

void ParallelSync::Impl::place_members(const ReplayItem& block) {
  auto it = members.find({block.comm, block.order});
  if (it == members.end()) return;
  const auto& list = it->second;
  const int bits = block_bits();
  for (std::size_t l = 0; l < list.size(); ++l) {
    ReplayItem item;
    item.type = ReplayItemType::member_count;
    item.comm = block.comm;
    item.destination = list[l].second;
    item.number = block.number;
    item.order = static_cast<std::int32_t>((static_cast<std::int64_t>(block.order) << bits) +
                                           static_cast<std::int64_t>(l));
    item.root = l == 0 ? block.root : list[binomial_parent(l)].second;
    item.wants = l == 0 && block.root < 0 ? 1 : 0;  // the top
    post(dir.process_of(item.destination), item);
  }
  members.erase(it);
}

}  // namespace mpidle::sync
