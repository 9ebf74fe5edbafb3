// The backward replay: from receivers back to senders (and from collective hubs
// back to members), how late each cause may become; then the backward amortization.

#include "parallel_sync_state.hpp"

namespace mpidle::sync {

std::pair<RankState*, std::uint32_t> ParallelSync::Impl::send_channel(const ReplayItem& item) {
  auto* r = local(item.source);
  if (!r) return {nullptr, 0};
  auto it = r->send_index.find(channel_of(item));
  if (it == r->send_index.end() || item.number >= r->send_events[it->second].size()) {
    return {nullptr, 0};
  }
  return {r, it->second};
}

void ParallelSync::Impl::start_backward() {
  for (auto& r : ranks) {
    to_senders(r, ReplayItemType::message_back,
               [&](const ReceiveItem& receive) { return r.lc[2 * receive.complete.record + 1]; });
    for (const auto& c : r.items.collectives) {
      ReplayItem item = collective_item(r, c, ReplayItemType::exit_back);
      item.wants = c.member.has_enter ? 1 : 0;
      item.value[0] = c.member.has_exit ? r.lc[2 * c.member.exit.record + 1] : 0;
      post(hub_of(c.comm, c.instance), item);
    }
  }
}

std::vector<ReplayItem>* ParallelSync::Impl::all_members(
    std::unordered_map<InstanceKey, BackwardInstance, InstanceHash>& hub, const ReplayItem& item) {
  auto& h = hub[{item.comm, item.number}];
  h.members.push_back(item);
  return h.members.size() < members_of(item) ? nullptr : &h.members;
}

void ParallelSync::Impl::hub_exit(const ReplayItem& item) {
  const InstanceKey key{item.comm, item.number};
  auto* all = all_members(backward_hub, item);
  if (!all) return;
  auto& group = *all;
  const auto kind = static_cast<CollectiveKind>(group.front().kind);
  const std::int32_t root = group.front().root;
  const std::int64_t latency = p.min_latency_ns;
  // The bound of each member's enter (kUnbounded: none), as latest_allowed finds it.
  std::vector<std::int64_t> bound(group.size(), kUnbounded);
  if (group.size() >= 2) {
    switch (kind) {
      case CollectiveKind::n_to_n: {
        std::int64_t earliest = kUnbounded;
        for (const auto& m : group) {
          if (m.has_exit) earliest = std::min(earliest, m.value[0]);
        }
        std::fill(bound.begin(), bound.end(), earliest - latency);
        break;
      }
      case CollectiveKind::one_to_n: {
        std::int64_t earliest = kUnbounded;
        bool any = false;
        for (const auto& m : group) {
          if (m.has_exit && m.source != root) {
            earliest = std::min(earliest, m.value[0]);
            any = true;
          }
        }
        for (std::size_t i = 0; i < group.size(); ++i) {
          if (any && group[i].source == root) bound[i] = earliest - latency;
        }
        break;
      }
      case CollectiveKind::n_to_one: {
        const ReplayItem* root_member = nullptr;
        for (const auto& m : group) {
          if (m.source == root) root_member = &m;
        }
        if (root_member && root_member->has_exit) {
          for (std::size_t i = 0; i < group.size(); ++i) {
            if (group[i].source != root) bound[i] = root_member->value[0] - latency;
          }
        }
        break;
      }
      case CollectiveKind::scan:
      case CollectiveKind::exscan: {
        const bool all_entered =
            std::all_of(group.begin(), group.end(), [](const ReplayItem& m) { return m.wants; });
        if (!all_entered) break;
        std::vector<std::size_t> by_order(group.size());
        for (std::size_t i = 0; i < by_order.size(); ++i) by_order[i] = i;
        std::stable_sort(by_order.begin(), by_order.end(), [&](std::size_t a, std::size_t b) {
          return group[a].order < group[b].order;
        });
        const bool exclusive = kind == CollectiveKind::exscan;
        std::int64_t suffix = kUnbounded;  // the earliest exit of the group after
        for (std::size_t n = by_order.size(); n-- > 0;) {
          const auto& m = group[by_order[n]];
          if (!exclusive && m.has_exit) suffix = std::min(suffix, m.value[0]);
          bound[by_order[n]] = suffix - latency;
          if (exclusive && m.has_exit && n > 0) suffix = std::min(suffix, m.value[0]);
        }
        break;
      }
      case CollectiveKind::none:
        break;
    }
  }
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (!group[i].wants || bound[i] == kUnbounded) continue;
    reply(ReplayItemType::exit_back_reply, key, group[i].source, {bound[i], 0, 0});
  }
  backward_hub.erase(key);
}

void ParallelSync::Impl::amortize() {
  for (auto& r : ranks) {
    amortize_rank_backward(r.jumps, {r.bounded, r.latest}, p.backward_slope, r.lc, scratch);
    r.jumps = {};
    r.bounded = {};
    r.latest = {};
  }
}

}  // namespace mpidle::sync
