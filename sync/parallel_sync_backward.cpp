// The backward replay: from receivers back to senders (and over each collective
// instance's tree), how late each cause may become; then the backward amortization.

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
    for (std::uint32_t i = 0; i < r.items.collectives.size(); ++i) {
      const auto& c = r.items.collectives[i];
      ReplayItem item = collective_item(r, c);
      item.wants = c.member.has_enter ? 1 : 0;
      item.value[0] = c.member.has_exit ? r.lc[2 * c.member.exit.record + 1] : 0;
      tree_arrive(Stage::backward, r, i, item);
    }
  }
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
