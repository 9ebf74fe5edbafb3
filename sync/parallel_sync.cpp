#include "parallel_sync.hpp"

#include "parallel_sync_state.hpp"

namespace mpidle::sync {

int ReplayDirectory::process_of(std::int32_t world_rank) const {
  if (world_rank < 0) return -1;
  if (dense > 0) {
    if (world_rank >= dense) return -1;
    return static_cast<int>(static_cast<std::int64_t>(world_rank) * processes / dense);
  }
  if (static_cast<std::size_t>(world_rank) >= process_of_rank.size()) return -1;
  return process_of_rank[static_cast<std::size_t>(world_rank)];
}

std::int64_t ReplayDirectory::position_of(std::int32_t world_rank) const {
  if (process_of(world_rank) < 0) return -1;
  return dense > 0 ? world_rank : position_of_rank[static_cast<std::size_t>(world_rank)];
}

ReplayDirectory block_directory(const std::vector<std::int32_t>& world_ranks, int processes) {
  ReplayDirectory d;
  d.processes = processes;
  const std::size_t n = world_ranks.size();
  bool in_order = n > 0;
  for (std::size_t i = 0; i < n && in_order; ++i) {
    in_order = world_ranks[i] == static_cast<std::int32_t>(i);
  }
  if (in_order) {
    d.dense = static_cast<std::int32_t>(n);
    return d;
  }
  std::int32_t largest = -1;
  for (auto w : world_ranks) largest = std::max(largest, w);
  d.process_of_rank.assign(static_cast<std::size_t>(largest + 1), -1);
  d.position_of_rank.assign(static_cast<std::size_t>(largest + 1), 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto w = static_cast<std::size_t>(world_ranks[i]);
    d.process_of_rank[w] = static_cast<std::int32_t>(i * static_cast<std::size_t>(processes) / n);
    d.position_of_rank[w] = static_cast<std::uint32_t>(i);
  }
  return d;
}

void ParallelSync::Impl::post(int process, const ReplayItem& item) {
  if (process < 0) return;
  if (process == net.self()) {
    local_items.push_back(item);
    drain();
    return;
  }
  auto& box = outbox[process];
  box.push_back(item);
  if (box.size() >= kBatchItems) flush(process);
}

void ParallelSync::Impl::drain() {
  if (draining) return;
  draining = true;
  while (!local_items.empty()) {
    const ReplayItem item = local_items.front();
    local_items.pop_front();
    handle(item);
  }
  draining = false;
}

void ParallelSync::Impl::flush(int process) {
  auto it = outbox.find(process);
  if (it == outbox.end()) return;
  sent += it->second.size();
  net.send(process, std::move(it->second));
  outbox.erase(it);
}

void ParallelSync::Impl::flush_all() {
  for (auto& [process, box] : outbox) {
    sent += box.size();
    net.send(process, std::move(box));
  }
  outbox.clear();
}

void ParallelSync::Impl::handle(const ReplayItem& item) {
  switch (item.type) {
    case ReplayItemType::member:
      members[{item.comm, item.tag}].emplace_back(item.order, item.source);
      break;
    case ReplayItemType::block_count:
      blocks[item.comm].push_back(
          {item.order, static_cast<std::int32_t>(item.number), item.source});
      break;
    case ReplayItemType::block_place:
      place_members(item);
      break;
    case ReplayItemType::member_count:
      member_count(item);
      break;
    case ReplayItemType::tree_child:
      if (auto* r = local(item.destination)) {
        auto& children = r->trees[item.comm].children;
        const std::pair<std::int32_t, std::int32_t> child{item.order, item.source};
        children.insert(std::lower_bound(children.begin(), children.end(), child), child);
      }
      break;
    case ReplayItemType::channel_count:
      if (auto* r = local(item.destination)) r->announced[channel_of(item)] = item.number;
      break;
    case ReplayItemType::message:
    case ReplayItemType::check_message:
      if (auto* r = local(item.destination)) {
        auto it = r->receive_index.find(channel_of(item));
        if (it == r->receive_index.end()) break;
        if (item.type == ReplayItemType::message) {
          r->arrived[it->second].push_back(item.value[0]);
        } else {
          r->check_arrived[it->second].push_back({item.value[0], item.value[1], item.value[2]});
        }
      }
      break;
    case ReplayItemType::check_back:
      if (auto [r, idx] = send_channel(item); r) r->posted_back[idx][item.number] = item.value[0];
      break;
    case ReplayItemType::tree_up:
    case ReplayItemType::tree_root_up:
    case ReplayItemType::tree_root_down:
    case ReplayItemType::tree_total:
    case ReplayItemType::tree_context:
      tree_item(item);
      break;
    case ReplayItemType::message_back:
      if (auto [r, idx] = send_channel(item); r) {
        r->lower_bound_of(r->send_events[idx][item.number], item.value[0] - p.min_latency_ns);
      }
      break;
  }
}

ReplayTally ParallelSync::Impl::tally() const {
  ReplayTally t;
  t.sent = sent;
  t.received = received;
  if (phase == Phase::forward) {
    for (const auto& r : ranks) {
      if (r.cursor >= r.events()) continue;
      ++t.unfinished;
      const std::pair<std::int64_t, std::int64_t> here{r.interp(r.cursor), r.position};
      if (here < std::pair(t.blocked_time, t.blocked_position)) {
        std::tie(t.blocked_time, t.blocked_position) = here;
      }
    }
  }
  if (phase == Phase::stats) t.stats = stats;
  return t;
}

bool ParallelSync::Impl::on_round(const ReplayTally& t, ReplayStats& total) {
  if (phase == Phase::stats) {
    total = t.stats;
    phase = Phase::done;
    return true;
  }
  const bool quiet = t.sent == t.received && have_previous && previous.sent == t.sent &&
                     previous.received == t.received;
  previous = t;
  have_previous = true;
  if (!quiet) return false;
  have_previous = false;
  switch (phase) {
    case Phase::membership:
      // Each block's process tells the communicator's home what the block holds.
      for (auto& [key, list] : members) {
        std::sort(list.begin(), list.end());
        ReplayItem item;
        item.type = ReplayItemType::block_count;
        item.comm = key.first;
        item.order = key.second;
        item.number = list.size();
        item.source = list.front().second;
        post(home_of(key.first), item);
      }
      phase = Phase::member_blocks;
      break;
    case Phase::member_blocks:
      // The homes place the blocks, and the blocks' processes their members.
      place_blocks();
      phase = Phase::member_counts;
      break;
    case Phase::member_counts:
      start_forward();
      phase = Phase::forward;
      break;
    case Phase::forward:
      if (t.unfinished > 0) {
        force(t.blocked_position);
      } else {
        trees[static_cast<std::size_t>(Stage::forward)].clear();
        start_backward();
        phase = Phase::backward;
      }
      break;
    case Phase::backward:
      trees[static_cast<std::size_t>(Stage::backward)].clear();
      amortize();
      start_check();
      phase = Phase::check;
      break;
    case Phase::check:
      count_violations();
      trees[static_cast<std::size_t>(Stage::check)].clear();
      phase = Phase::stats;
      break;
    case Phase::stats:
    case Phase::done:
      break;
  }
  return false;
}

ParallelSync::ParallelSync(ReplayNetwork& network, std::vector<model::RankTrace*> ranks,
                           ReplayDirectory directory, const ClcParams& params)
    : m_impl(std::make_unique<Impl>(network, std::move(directory), params)) {
  m_result.params = params;
  for (auto* trace : ranks) {
    RankState r;
    r.trace = trace;
    r.world = trace->rank;
    r.position =
        static_cast<std::uint32_t>(std::max<std::int64_t>(0, m_impl->dir.position_of(trace->rank)));
    m_result.models.push_back(offset_model_of(*trace, params.raw_clocks));
    r.model = m_result.models.back();
    m_impl->local_of_world.emplace(r.world, m_impl->ranks.size());
    m_impl->ranks.push_back(std::move(r));
  }
  m_impl->start();
}

ParallelSync::~ParallelSync() = default;

bool ParallelSync::step() {
  Impl& s = *m_impl;
  if (s.phase == Phase::done) return true;
  bool progressed = false;
  std::vector<ReplayItem> batch;
  while (s.net.receive(batch)) {
    s.received += batch.size();
    s.local_items.insert(s.local_items.end(), batch.begin(), batch.end());
    s.drain();
    progressed = true;
  }
  if (s.phase == Phase::forward) {
    for (auto& r : s.ranks) {
      if (r.cursor < r.events()) progressed |= s.run(r, false);
    }
  }
  s.flush_all();
  if (progressed) return false;
  if (!s.round_pending) {
    s.net.start_reduction(s.tally());
    s.round_pending = true;
  }
  ReplayTally t;
  if (!s.net.reduction_done(t)) {
    s.net.idle();
    return false;
  }
  s.round_pending = false;
  ReplayStats total;
  if (!s.on_round(t, total)) return false;
  m_result.violations_raw = total.violations_raw;
  m_result.clc.violations_before = total.violations_before;
  m_result.clc.violations_after = total.violations_after;
  m_result.clc.events_moved = total.events_moved;
  m_result.clc.max_shift_ns = total.max_shift_ns;
  m_result.clc.mean_shift_ns =
      total.events ? total.shift_sum_ns / static_cast<double>(total.events) : 0;
  m_result.clc.interval_change_mean_ns =
      total.intervals ? total.interval_change_sum_ns / static_cast<double>(total.intervals) : 0;
  m_result.clc.unresolved = total.unresolved;
  m_result.min_gap_raw_ns = total.min_gap_raw_ns;
  m_result.min_gap_corrected_ns = total.min_gap_corrected_ns;
  m_result.messages = total.messages;
  m_result.unmatched_sends = total.unmatched_sends;
  m_result.unmatched_receives = total.unmatched_receives;
  m_result.cancelled = total.cancelled;
  m_complete_collectives = total.complete_collectives;
  m_collective_rounds = total.collective_rounds;
  for (auto& r : s.ranks) r.trace->synced = std::move(r.lc);
  return true;
}

std::vector<RankPartners> ParallelSync::take_partners() {
  std::vector<RankPartners> out;
  for (auto& r : m_impl->ranks) {
    RankPartners& p = out.emplace_back();
    for (std::uint32_t idx = 0; idx < r.receive_keys.size(); ++idx) {
      auto& times = p.send_enter[r.receive_keys[idx]];
      const auto& arrived = r.check_arrived[idx];
      for (std::uint64_t k = 0; k < r.matched[idx] && k < arrived.size(); ++k) {
        times.push_back(arrived[k][2]);
      }
    }
    for (std::uint32_t idx = 0; idx < r.send_keys.size(); ++idx) {
      auto& times = p.posted_enter[r.send_keys[idx]];
      for (const auto t : r.posted_back[idx]) {
        if (t == kNever) break;  // the sends after the last matched one
        times.push_back(t);
      }
    }
    p.until = std::move(r.until);
    p.complete = std::move(r.complete);
    p.items = std::move(r.items);
  }
  return out;
}

TraceSyncResult synchronize_trace_by_replay(model::Trace& trace, ClcParams params, int processes,
                                            std::vector<RankPartners>* partners,
                                            std::uint64_t* complete_collectives,
                                            std::uint64_t* collective_rounds) {
  processes = std::max(1, std::min<int>(processes, static_cast<int>(trace.ranks.size())));
  std::vector<std::int32_t> world;
  for (const auto& r : trace.ranks) world.push_back(r.rank);
  const ReplayDirectory dir = block_directory(world, processes);
  auto replay_once = [&](const ClcParams& p) {
    Loopback loopback(processes);
    std::vector<std::unique_ptr<ParallelSync>> replays;
    for (int q = 0; q < processes; ++q) {
      std::vector<model::RankTrace*> mine;
      for (auto& r : trace.ranks) {
        if (dir.process_of(r.rank) == q) mine.push_back(&r);
      }
      replays.push_back(std::make_unique<ParallelSync>(loopback.network(q), mine, dir, p));
    }
    // Processes take uneven turns (1 to 3 steps each, varying), so that one can run
    // ahead into the next phase while another still finishes the last, as over MPI.
    std::vector<bool> done(replays.size(), false);
    for (std::size_t turn = 0; std::find(done.begin(), done.end(), false) != done.end(); ++turn) {
      for (std::size_t q = 0; q < replays.size(); ++q) {
        const std::size_t steps = 1 + (turn * 7 + q * 3) % 3;
        for (std::size_t k = 0; k < steps && !done[q]; ++k) done[q] = replays[q]->step();
      }
    }
    TraceSyncResult result = replays.front()->result();
    result.models.clear();
    if (partners) partners->clear();
    for (auto& replay : replays) {
      const auto& models = replay->result().models;
      result.models.insert(result.models.end(), models.begin(), models.end());
      if (partners) {
        for (auto& p : replay->take_partners()) partners->push_back(std::move(p));
      }
    }
    if (complete_collectives) *complete_collectives = replays.front()->complete_collectives();
    if (collective_rounds) *collective_rounds = replays.front()->collective_rounds();
    return result;
  };
  return synchronize_with_plan(replay_once, params, trace.min_latency_ns);
}

}  // namespace mpidle::sync
