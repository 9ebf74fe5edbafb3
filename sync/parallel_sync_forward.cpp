// The forward replay: each rank's events in order, corrected by the controlled
// logical clock as far as their causes (messages and collective replies) allow.

#include "parallel_sync_state.hpp"

namespace mpidle::sync {

void ParallelSync::Impl::start_forward() {
  for (auto& r : ranks) {
    for (std::uint32_t idx = 0; idx < r.receive_keys.size(); ++idx) {
      const auto& receives = r.items.receives.at(r.receive_keys[idx]);
      auto it = r.announced.find(r.receive_keys[idx]);
      const std::uint64_t sends = it == r.announced.end() ? 0 : it->second;
      const std::uint64_t matched = std::min<std::uint64_t>(sends, receives.size());
      r.matched.push_back(matched);
      stats.messages += matched;
      stats.unmatched_receives += receives.size() - matched;
      stats.unmatched_sends += sends - matched;
      for (std::uint64_t k = 0; k < matched; ++k) {
        r.incoming.push_back({2 * receives[k].complete.record + 1, false, idx, k});
      }
    }
    for (const auto& [key, sends] : r.announced) {
      if (!r.receive_index.contains(key)) stats.unmatched_sends += sends;
    }
    for (std::uint32_t idx = 0; idx < r.send_events.size(); ++idx) {
      const auto& events = r.send_events[idx];
      for (std::uint64_t k = 0; k < events.size(); ++k)
        r.outgoing.push_back({events[k], false, idx, k});
    }
    for (std::uint32_t i = 0; i < r.items.collectives.size(); ++i) {
      const auto& c = r.items.collectives[i];
      if (c.member.has_enter) r.outgoing.push_back({2 * c.member.enter.record, true, i, 0});
      if (exit_waits(c)) r.incoming.push_back({2 * c.member.exit.record + 1, true, i, 0});
    }
    auto by_event = [](const auto& a, const auto& b) { return a.event < b.event; };
    std::stable_sort(r.incoming.begin(), r.incoming.end(), by_event);
    std::stable_sort(r.outgoing.begin(), r.outgoing.end(), by_event);
    // Ready before any backward item can arrive from a process that is ahead.
    for (const auto& out : r.outgoing) {
      if (r.bounded.empty() || r.bounded.back() != out.event) r.bounded.push_back(out.event);
    }
    r.latest.assign(r.bounded.size(), kUnbounded);
  }
}

bool ParallelSync::Impl::cause_of(const RankState& r, const Incoming& in,
                                  std::int64_t& value) const {
  if (in.collective) {
    if (!r.replied[in.index]) return false;
    value = r.reply[in.index];
    return true;
  }
  const auto& arrived = r.arrived[in.index];
  if (in.number >= arrived.size()) return false;
  value = arrived[in.number];
  return true;
}

ReplayItem ParallelSync::Impl::collective_item(const RankState& r, const CollectiveItem& c) {
  ReplayItem item;
  item.comm = c.comm;
  item.number = c.instance;
  item.source = r.world;
  item.order = c.member.order;
  item.root = c.root;
  item.kind = static_cast<std::uint8_t>(c.kind);
  item.wants = exit_waits(c) ? 1 : 0;
  item.has_exit = c.member.has_exit ? 1 : 0;
  item.blocking = c.member.has_enter &&
                  r.trace->records[c.member.enter.record].role == model::TraceRole::collective;
  return item;
}

void ParallelSync::Impl::emit(RankState& r, const Outgoing& out, const Triple& values, bool check) {
  if (out.collective) {
    ReplayItem item = collective_item(r, r.items.collectives[out.index]);
    std::copy(values.begin(), values.end(), item.value);
    tree_arrive(check ? Stage::check : Stage::forward, r, out.index, item);
    return;
  }
  ReplayItem item;
  item.type = check ? ReplayItemType::check_message : ReplayItemType::message;
  std::tie(item.comm, item.source, item.destination, item.tag) = r.send_keys[out.index];
  item.number = out.number;
  std::copy(values.begin(), values.end(), item.value);
  post(dir.process_of(item.destination), item);
}

bool ParallelSync::Impl::run(RankState& r, bool force) {
  bool progressed = false;
  const std::uint64_t n = r.events();
  while (r.cursor < n) {
    const std::uint64_t e = r.cursor;
    std::int64_t need = kNever;
    std::size_t i = r.next_in;
    for (; i < r.incoming.size() && r.incoming[i].event == e; ++i) {
      std::int64_t value = kNever;
      if (!cause_of(r, r.incoming[i], value)) {
        if (!force) return progressed;
        continue;
      }
      if (value != kNever) need = std::max(need, value + p.min_latency_ns);
    }
    force = false;
    r.next_in = i;
    const std::int64_t local_time =
        e > 0 ? clc_local_time(r.interp(e), r.interp(e - 1), r.lc[e - 1], p) : r.interp(e);
    r.lc[e] = std::max(local_time, need);
    if (r.lc[e] > local_time) r.jumps.emplace_back(e, r.lc[e] - local_time);
    for (; r.next_out < r.outgoing.size() && r.outgoing[r.next_out].event == e; ++r.next_out) {
      emit(r, r.outgoing[r.next_out], {r.lc[e], 0, 0}, false);
    }
    ++r.cursor;
    progressed = true;
  }
  return progressed;
}

void ParallelSync::Impl::force(std::int64_t position) {
  for (auto& r : ranks) {
    if (r.position == static_cast<std::uint64_t>(position) && r.cursor < r.events()) {
      ++stats.unresolved;
      run(r, true);
    }
  }
}

}  // namespace mpidle::sync
