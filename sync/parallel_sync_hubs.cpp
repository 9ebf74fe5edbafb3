// Collective instances at their hub in the forward replay (and the check): the
// members' enter times combined as the instance's kind requires, and each member's
// reply.

#include "parallel_sync_state.hpp"

namespace mpidle::sync {

void ParallelSync::Impl::reply(ReplayItemType type, const InstanceKey& key, std::int32_t member,
                               const Triple& v) {
  ReplayItem item;
  item.type = type;
  item.comm = key.first;
  item.number = key.second;
  item.destination = member;
  std::copy(v.begin(), v.end(), item.value);
  post(dir.process_of(member), item);
}

void ParallelSync::Impl::hub_enter(const ReplayItem& item, bool check) {
  auto& hub = check ? check_hub : forward_hub;
  const auto reply_type = check ? ReplayItemType::check_reply : ReplayItemType::enter_reply;
  const InstanceKey key{item.comm, item.number};
  const std::uint32_t expected = members_of(item);
  ForwardInstance& h = hub[key];
  const Triple v = {item.value[0], item.value[1], item.value[2]};
  ++h.arrived;
  if (h.arrived == 1) {
    h.kind = static_cast<CollectiveKind>(item.kind);
    h.root = item.root;
  }
  auto answer_all = [&](const Triple& value) {
    for (const auto& [member, order] : h.waiting) reply(reply_type, key, member, value);
    h.waiting.clear();
  };
  if (expected < 2) {
    if (item.wants) reply(reply_type, key, item.source, kNoCause);
  } else {
    switch (h.kind) {
      case CollectiveKind::n_to_n:
        h.all = max_of(h.all, v);
        if (item.wants) h.waiting.emplace_back(item.source, item.order);
        if (h.arrived >= expected) answer_all(h.all);
        break;
      case CollectiveKind::one_to_n:
        if (item.source == h.root) {
          h.root_value = v;
          h.root_arrived = true;
          answer_all(v);
        } else if (item.wants) {
          if (h.root_arrived) {
            reply(reply_type, key, item.source, h.root_value);
          } else {
            h.waiting.emplace_back(item.source, item.order);
          }
        }
        if (h.arrived >= expected) answer_all(kNoCause);  // no root among the members
        break;
      case CollectiveKind::n_to_one:
        if (item.source != h.root) h.non_root = max_of(h.non_root, v);
        if (item.wants) h.waiting.emplace_back(item.source, item.order);
        if (h.arrived >= expected) answer_all(h.non_root);
        break;
      case CollectiveKind::scan:
      case CollectiveKind::exscan:
        hub_scan(h, item, v, expected, key, reply_type);
        break;
      case CollectiveKind::none:
        if (item.wants) reply(reply_type, key, item.source, kNoCause);
        break;
    }
  }
  if (h.arrived >= expected && h.waiting.empty()) hub.erase(key);
}

void ParallelSync::Impl::hub_scan(ForwardInstance& h, const ReplayItem& item, const Triple& v,
                                  std::uint32_t expected, const InstanceKey& key,
                                  ReplayItemType reply_type) {
  if (h.by_order.empty()) {
    h.by_order.assign(expected, kNoCause);
    h.have.assign(expected, 0);
  }
  if (item.order < 0 || static_cast<std::uint32_t>(item.order) >= expected) {
    if (item.wants) reply(reply_type, key, item.source, kNoCause);  // an inconsistent trace
  } else {
    h.by_order[static_cast<std::size_t>(item.order)] = v;
    h.have[static_cast<std::size_t>(item.order)] = 1;
    if (item.wants) h.waiting.emplace_back(item.source, item.order);
  }
  while (h.prefix.size() < expected && h.have[h.prefix.size()]) {
    const std::size_t n = h.prefix.size();
    h.prefix.push_back(n == 0 ? h.by_order[0] : max_of(h.prefix[n - 1], h.by_order[n]));
  }
  const bool exclusive = h.kind == CollectiveKind::exscan;
  std::erase_if(h.waiting, [&](const std::pair<std::int32_t, std::int32_t>& w) {
    const auto order = static_cast<std::size_t>(w.second);
    const std::size_t needed = exclusive ? order : order + 1;  // orders 0..needed−1
    if (h.prefix.size() < needed) return false;
    reply(reply_type, key, w.first, needed == 0 ? kNoCause : h.prefix[needed - 1]);
    return true;
  });
  if (h.arrived >= expected) {
    for (const auto& [member, order] : h.waiting) reply(reply_type, key, member, kNoCause);
    h.waiting.clear();
  }
}

}  // namespace mpidle::sync
