#include "collective_waits.hpp"

#include <algorithm>

#include "controlled_clock.hpp"

namespace mpidle::sync {

using model::CollectiveKind;

void collective_wait_until(CollectiveKind kind, std::int32_t root,
                           const std::vector<CollectiveEnter>& members,
                           std::vector<std::int64_t>& until, std::vector<std::size_t>& by_order) {
  until.assign(members.size(), kClcNever);
  switch (kind) {
    case CollectiveKind::n_to_n: {
      std::int64_t last = INT64_MIN;
      for (const auto& m : members) last = std::max(last, m.enter_ns);
      std::fill(until.begin(), until.end(), last);
      break;
    }
    case CollectiveKind::one_to_n:
      for (const auto& r : members) {
        if (r.rank != root) continue;
        for (std::size_t i = 0; i < members.size(); ++i) {
          if (members[i].rank != root) until[i] = r.enter_ns;
        }
      }
      break;
    case CollectiveKind::n_to_one: {
      // The root can receive as soon as the first sender has entered.
      std::int64_t first_sender = INT64_MAX;
      for (const auto& m : members) {
        if (m.rank != root) first_sender = std::min(first_sender, m.enter_ns);
      }
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (members[i].rank == root) until[i] = first_sender;
      }
      break;
    }
    case CollectiveKind::scan:
    case CollectiveKind::exscan: {
      by_order.resize(members.size());
      for (std::size_t i = 0; i < by_order.size(); ++i) by_order[i] = i;
      std::stable_sort(by_order.begin(), by_order.end(), [&](std::size_t a, std::size_t b) {
        return members[a].order < members[b].order;
      });
      std::int64_t latest_before = INT64_MIN;
      for (std::size_t i : by_order) {
        if (latest_before != INT64_MIN) until[i] = latest_before;
        latest_before = std::max(latest_before, members[i].enter_ns);
      }
      break;
    }
    case CollectiveKind::none:
      break;
  }
}

}  // namespace mpidle::sync
