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

void collective_clock_causes(CollectiveKind kind, std::int32_t root,
                             const std::vector<CollectiveEnter>& members,
                             std::vector<std::int64_t>& cause, std::vector<std::size_t>& by_order) {
  cause.assign(members.size(), kClcNever);
  auto latest_of_others = [&](std::size_t i) {
    std::int64_t latest = kClcNever;
    for (std::size_t j = 0; j < members.size(); ++j) {
      if (j != i)
        latest = latest == kClcNever ? members[j].enter_ns : std::max(latest, members[j].enter_ns);
    }
    return latest;
  };
  switch (kind) {
    case CollectiveKind::n_to_n: {
      // The last to enter is every other member's cause; its own is the one before.
      if (members.size() < 2) break;
      std::size_t last = 0;
      for (std::size_t i = 1; i < members.size(); ++i) {
        if (members[i].enter_ns > members[last].enter_ns) last = i;
      }
      for (std::size_t i = 0; i < members.size(); ++i) {
        cause[i] = i == last ? latest_of_others(last) : members[last].enter_ns;
      }
      break;
    }
    case CollectiveKind::n_to_one:
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (members[i].rank == root) cause[i] = latest_of_others(i);
      }
      break;
    case CollectiveKind::one_to_n:
    case CollectiveKind::scan:
    case CollectiveKind::exscan:
      // The same references as the wait: the root's enter for the others; the latest
      // enter of the members before.
      collective_wait_until(kind, root, members, cause, by_order);
      break;
    case CollectiveKind::none:
      break;
  }
}

}  // namespace mpidle::sync
