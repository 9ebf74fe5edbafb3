#include "parallel_sync.hpp"

#include "clock_plan.hpp"

#include <algorithm>
#include <array>
#include <functional>

#include "trace_matching.hpp"

namespace mpidle::sync {
namespace {

using model::CollectiveKind;
constexpr std::int64_t kNever = kClcNever;
constexpr std::int64_t kUnbounded = kClcUnbounded;
constexpr std::size_t kBatchItems = 4096;  // items per batch before it leaves without waiting

using Triple = std::array<std::int64_t, 3>;
constexpr Triple kNoCause = {kNever, kNever, kNever};

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct ChannelHash {
  std::size_t operator()(const ChannelKey& k) const {
    const auto [comm, source, destination, tag] = k;
    return static_cast<std::size_t>(mix(comm ^ mix(static_cast<std::uint32_t>(source) ^
                                                   mix(static_cast<std::uint32_t>(destination) ^
                                                       mix(static_cast<std::uint32_t>(tag))))));
  }
};

using InstanceKey = std::pair<std::uint32_t, std::uint64_t>;  // communicator, instance
struct InstanceHash {
  std::size_t operator()(const InstanceKey& k) const {
    return static_cast<std::size_t>(mix(k.first ^ mix(k.second)));
  }
};

ChannelKey channel_of(const ReplayItem& item) {
  return {item.comm, item.source, item.destination, item.tag};
}

Triple max_of(const Triple& a, const Triple& b) {
  return {std::max(a[0], b[0]), std::max(a[1], b[1]), std::max(a[2], b[2])};
}

// Whether a member's exit depends on other members (see add_collective in trace_sync).
bool exit_waits(const CollectiveItem& c) {
  if (!c.member.has_exit) return false;
  switch (c.kind) {
    case CollectiveKind::one_to_n:
      return c.root != c.member.rank;
    case CollectiveKind::n_to_one:
      return c.root == c.member.rank;
    case CollectiveKind::exscan:
      return c.member.order > 0;
    case CollectiveKind::n_to_n:
    case CollectiveKind::scan:
      return true;
    case CollectiveKind::none:
      return false;
  }
  return false;
}

// An event that waits for another rank: the k-th message of a receive channel, or
// a collective's reply.
struct Incoming {
  std::uint64_t event = 0;
  bool collective = false;
  std::uint32_t index = 0;   // receive channel, or collective item
  std::uint64_t number = 0;  // k
};

// An event another rank waits for.
struct Outgoing {
  std::uint64_t event = 0;
  bool collective = false;
  std::uint32_t index = 0;   // send channel, or collective item
  std::uint64_t number = 0;  // k
};

struct RankState {
  model::RankTrace* trace = nullptr;
  std::uint32_t position = 0;
  std::int32_t world = 0;
  OffsetModel model;  // interpolation to rank 0's timeline, applied as needed
  // Corrected times; forward jumps (event, size; only those > 0); how late each
  // cause with effects on other ranks may become (the backward replay's).
  std::vector<std::int64_t> lc;
  std::vector<std::pair<std::uint64_t, std::int64_t>> jumps;
  std::vector<std::uint64_t> bounded;  // events with effects elsewhere, ascending
  std::vector<std::int64_t> latest;    // by `bounded`

  void lower_bound_of(std::uint64_t e, std::int64_t value) {
    auto it = std::lower_bound(bounded.begin(), bounded.end(), e);
    if (it == bounded.end() || *it != e) return;
    auto& b = latest[static_cast<std::size_t>(it - bounded.begin())];
    b = std::min(b, value);
  }
  RankMatchItems items;

  std::vector<ChannelKey> send_keys;
  std::unordered_map<ChannelKey, std::uint32_t, ChannelHash> send_index;
  std::vector<std::vector<std::uint64_t>> send_events;  // per send channel, by k

  std::vector<ChannelKey> receive_keys;
  std::unordered_map<ChannelKey, std::uint32_t, ChannelHash> receive_index;
  std::vector<std::uint64_t> matched;                                    // per receive channel
  std::unordered_map<ChannelKey, std::uint64_t, ChannelHash> announced;  // sends per channel
  std::vector<std::vector<std::int64_t>> arrived;  // per receive channel, by k
  std::vector<std::vector<Triple>> check_arrived;

  std::unordered_map<InstanceKey, std::uint32_t, InstanceHash> collective_index;
  std::unordered_map<std::uint32_t, std::int32_t> comm_members;  // from each comm's home
  std::vector<std::vector<std::int64_t>> posted_back;            // per send channel, by k
  std::vector<std::int64_t> until;                               // per collective item
  std::vector<std::int64_t> reply;  // per collective item (kNever: no constraint)
  std::vector<Triple> check_reply;
  std::vector<std::uint8_t> replied, check_replied;

  std::vector<Incoming> incoming;  // by event
  std::vector<Outgoing> outgoing;  // by event
  std::uint64_t cursor = 0;
  std::size_t next_in = 0, next_out = 0;

  std::uint64_t events() const { return 2 * trace->records.size(); }
  std::int64_t interp(std::uint64_t e) const { return model.to_reference(raw(e)); }
  std::int64_t raw(std::uint64_t e) const {
    const auto& r = trace->records[e / 2];
    return e % 2 ? r.exit_ns : r.enter_ns;
  }
};

// A collective instance at its hub: the forward replay's (and the check's) state.
struct ForwardInstance {
  CollectiveKind kind = CollectiveKind::none;
  std::int32_t root = -1;
  std::uint32_t arrived = 0;
  Triple all = kNoCause, non_root = kNoCause, root_value = kNoCause;
  bool root_arrived = false;
  std::vector<std::pair<std::int32_t, std::int32_t>> waiting;  // member, order
  // Scans: members' times by order, and prefix maxima of the orders present from 0.
  std::vector<Triple> by_order;
  std::vector<std::uint8_t> have;
  std::vector<Triple> prefix;
};

struct BackwardInstance {
  std::vector<ReplayItem> members;
};

enum class Phase { membership, member_counts, forward, backward, check, stats, done };

}  // namespace

int ReplayDirectory::process_of(std::int32_t world_rank) const {
  if (world_rank < 0 || static_cast<std::size_t>(world_rank) >= process_of_rank.size()) return -1;
  return process_of_rank[static_cast<std::size_t>(world_rank)];
}

ReplayDirectory block_directory(const std::vector<std::int32_t>& world_ranks, int processes) {
  ReplayDirectory d;
  const std::size_t n = world_ranks.size();
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

struct ParallelSync::Impl {
  ReplayNetwork& net;
  ReplayDirectory dir;
  ClcParams p;
  std::vector<RankState> ranks;
  std::unordered_map<std::int32_t, std::size_t> local_of_world;
  std::vector<std::vector<ReplayItem>> outbox;
  std::uint64_t sent = 0, received = 0;
  Phase phase = Phase::membership;
  bool round_pending = false, have_previous = false;
  ReplayTally previous;
  ReplayStats stats;
  // Hub state, for the communicators this process is the hub of.
  // Ranks taking part in each communicator's collectives, at the comm's home.
  std::unordered_map<std::uint32_t, std::vector<std::int32_t>> members;
  std::unordered_map<InstanceKey, ForwardInstance, InstanceHash> forward_hub, check_hub;
  std::unordered_map<InstanceKey, BackwardInstance, InstanceHash> backward_hub, wait_hub;
  std::vector<std::int64_t> scratch;

  Impl(ReplayNetwork& n, ReplayDirectory d, const ClcParams& params)
      : net(n), dir(std::move(d)), p(params), outbox(static_cast<std::size_t>(n.processes())) {}

  // A communicator's home counts its members; each collective instance has its own
  // hub, so that the instances of one communicator spread over all processes.
  int home_of(std::uint32_t comm) const {
    return static_cast<int>(mix(comm) % static_cast<std::uint64_t>(net.processes()));
  }
  int hub_of(std::uint32_t comm, std::uint64_t instance) const {
    return static_cast<int>(mix(comm ^ mix(instance + 1)) %
                            static_cast<std::uint64_t>(net.processes()));
  }

  RankState* local(std::int32_t world) {
    auto it = local_of_world.find(world);
    return it == local_of_world.end() ? nullptr : &ranks[it->second];
  }

  void post(int process, const ReplayItem& item) {
    if (process < 0) return;
    if (process == net.self()) {
      handle(item);
      return;
    }
    auto& box = outbox[static_cast<std::size_t>(process)];
    box.push_back(item);
    if (box.size() >= kBatchItems) flush(process);
  }

  void flush(int process) {
    auto& box = outbox[static_cast<std::size_t>(process)];
    if (box.empty()) return;
    sent += box.size();
    net.send(process, std::move(box));
    box = {};
  }

  void flush_all() {
    for (int q = 0; q < net.processes(); ++q) flush(q);
  }

  // ---- membership: who takes part in which communicator's collectives, and how
  // many messages each channel carries.
  void start() {
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

  // Where items for this rank land; built before any can arrive (a process can
  // enter the next phase while this one still finishes the last).
  void index(RankState& r) {
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

  // ---- forward replay
  void start_forward() {
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

  bool cause_of(const RankState& r, const Incoming& in, std::int64_t& value) const {
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

  ReplayItem collective_item(const RankState& r, const CollectiveItem& c, ReplayItemType type) {
    ReplayItem item;
    item.type = type;
    item.comm = c.comm;
    item.number = c.instance;
    item.source = r.world;
    item.order = c.member.order;
    item.root = c.root;
    item.kind = static_cast<std::uint8_t>(c.kind);
    auto members = r.comm_members.find(c.comm);
    item.tag = members == r.comm_members.end() ? 0 : members->second;
    item.wants = exit_waits(c) ? 1 : 0;
    item.has_exit = c.member.has_exit ? 1 : 0;
    item.blocking = c.member.has_enter &&
                    r.trace->records[c.member.enter.record].role == model::TraceRole::collective;
    return item;
  }

  void emit(RankState& r, const Outgoing& out, const Triple& values, bool check) {
    if (out.collective) {
      const auto& c = r.items.collectives[out.index];
      ReplayItem item =
          collective_item(r, c, check ? ReplayItemType::check_enter : ReplayItemType::enter);
      std::copy(values.begin(), values.end(), item.value);
      post(hub_of(c.comm, c.instance), item);
      return;
    }
    ReplayItem item;
    item.type = check ? ReplayItemType::check_message : ReplayItemType::message;
    std::tie(item.comm, item.source, item.destination, item.tag) = r.send_keys[out.index];
    item.number = out.number;
    std::copy(values.begin(), values.end(), item.value);
    post(dir.process_of(item.destination), item);
  }

  // Walks the rank's events as far as their causes allow (`force`: the first one
  // goes regardless, as the sequential replay breaks a cycle).
  bool run(RankState& r, bool force) {
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

  void force(std::int64_t position) {
    for (auto& r : ranks) {
      if (r.position == static_cast<std::uint64_t>(position) && r.cursor < r.events()) {
        ++stats.unresolved;
        run(r, true);
      }
    }
  }

  // ---- hubs: a collective's members' enter times → what each member's exit waits for.
  void reply(ReplayItemType type, const InstanceKey& key, std::int32_t member, const Triple& v) {
    ReplayItem item;
    item.type = type;
    item.comm = key.first;
    item.number = key.second;
    item.destination = member;
    std::copy(v.begin(), v.end(), item.value);
    post(dir.process_of(member), item);
  }

  void hub_enter(const ReplayItem& item, bool check) {
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

  void hub_scan(ForwardInstance& h, const ReplayItem& item, const Triple& v, std::uint32_t expected,
                const InstanceKey& key, ReplayItemType reply_type) {
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

  // One item back to the sender of each matched receive: the time `time_of` gives.
  template <typename TimeOf>
  void to_senders(const RankState& r, ReplayItemType type, TimeOf time_of) {
    for (std::uint32_t idx = 0; idx < r.receive_keys.size(); ++idx) {
      const auto& receives = r.items.receives.at(r.receive_keys[idx]);
      for (std::uint64_t k = 0; k < r.matched[idx]; ++k) {
        ReplayItem item;
        item.type = type;
        std::tie(item.comm, item.source, item.destination, item.tag) = r.receive_keys[idx];
        item.number = k;
        item.value[0] = time_of(receives[k]);
        post(dir.process_of(item.source), item);
      }
    }
  }

  // The sending rank and its send channel an item back from a receiver is about.
  std::pair<RankState*, std::uint32_t> send_channel(const ReplayItem& item) {
    auto* r = local(item.source);
    if (!r) return {nullptr, 0};
    auto it = r->send_index.find(channel_of(item));
    if (it == r->send_index.end() || item.number >= r->send_events[it->second].size()) {
      return {nullptr, 0};
    }
    return {r, it->second};
  }

  // ---- backward replay: how late each cause may become.
  void start_backward() {
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

  // How many members the item's collective has (each member's items carry it).
  static std::uint32_t members_of(const ReplayItem& item) {
    return static_cast<std::uint32_t>(std::max(item.tag, 0));
  }

  // Keeps a member's item with its instance; the instance's items once every
  // member's has come (the caller then erases the instance), else null.
  std::vector<ReplayItem>* all_members(
      std::unordered_map<InstanceKey, BackwardInstance, InstanceHash>& hub,
      const ReplayItem& item) {
    auto& h = hub[{item.comm, item.number}];
    h.members.push_back(item);
    return h.members.size() < members_of(item) ? nullptr : &h.members;
  }

  void hub_exit(const ReplayItem& item) {
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

  void amortize() {
    for (auto& r : ranks) {
      amortize_rank_backward(r.jumps, {r.bounded, r.latest}, p.backward_slope, r.lc, scratch);
      r.jumps = {};
      r.bounded = {};
      r.latest = {};
    }
  }

  // ---- the clock condition, before and after
  void start_check() {
    for (auto& r : ranks) {
      for (const auto& out : r.outgoing) {
        const auto e = out.event;
        emit(r, out, {r.raw(e), r.interp(e), r.lc[e]}, true);
      }
      // Senders learn where their receives were posted (late receiver).
      to_senders(r, ReplayItemType::check_back,
                 [&](const ReceiveItem& receive) { return r.lc[2 * receive.posted.record]; });
    }
  }

  // A collective's members' synchronized enters → until when each waited, as
  // analysis::analyze_wait_states measures it (complete, blocking instances only).
  void hub_wait(const ReplayItem& item) {
    const InstanceKey key{item.comm, item.number};
    auto* all = all_members(wait_hub, item);
    if (!all) return;
    auto& m = *all;
    const bool complete = m.size() >= 2 && std::all_of(m.begin(), m.end(), [](const auto& x) {
                            return x.has_exit && x.blocking;
                          });
    std::vector<std::int64_t> until(m.size(), kNever);
    if (complete) {
      ++stats.complete_collectives;
      const auto kind = static_cast<CollectiveKind>(m.front().kind);
      const std::int32_t root = m.front().root;
      std::int64_t last = kNever, root_enter = kNever, first_sender = kUnbounded;
      bool has_root = false;
      for (const auto& x : m) {
        last = std::max(last, x.value[2]);
        if (x.source == root) {
          root_enter = x.value[2];
          has_root = true;
        } else {
          first_sender = std::min(first_sender, x.value[2]);
        }
      }
      std::vector<std::size_t> by_order(m.size());
      for (std::size_t i = 0; i < m.size(); ++i) by_order[i] = i;
      std::int64_t latest_before = kNever;
      switch (kind) {
        case CollectiveKind::n_to_n:
          std::fill(until.begin(), until.end(), last);
          break;
        case CollectiveKind::one_to_n:
          for (std::size_t i = 0; i < m.size(); ++i) {
            if (has_root && m[i].source != root) until[i] = root_enter;
          }
          break;
        case CollectiveKind::n_to_one:
          for (std::size_t i = 0; i < m.size(); ++i) {
            if (m[i].source == root) until[i] = first_sender;
          }
          break;
        case CollectiveKind::scan:
        case CollectiveKind::exscan:
          std::stable_sort(by_order.begin(), by_order.end(),
                           [&](std::size_t a, std::size_t b) { return m[a].order < m[b].order; });
          for (const std::size_t i : by_order) {
            if (latest_before != kNever) until[i] = latest_before;
            latest_before = std::max(latest_before, m[i].value[2]);
          }
          break;
        case CollectiveKind::none:
          break;
      }
    }
    for (std::size_t i = 0; i < m.size(); ++i) {
      if (until[i] != kNever) reply(ReplayItemType::wait_reply, key, m[i].source, {until[i], 0, 0});
    }
    wait_hub.erase(key);
  }

  static void note_gap(std::int64_t& smallest, std::int64_t gap) {
    if (gap >= 0) smallest = std::min(smallest, gap);
  }

  void count_violations() {
    for (auto& r : ranks) {
      for (std::size_t i = 0; i < r.incoming.size();) {
        const std::uint64_t e = r.incoming[i].event;
        Triple cause = kNoCause;
        for (; i < r.incoming.size() && r.incoming[i].event == e; ++i) {
          const auto& in = r.incoming[i];
          if (in.collective) {
            if (r.check_replied[in.index]) {
              const Triple& latest_enter = r.check_reply[in.index];
              cause = max_of(cause, latest_enter);
              if (latest_enter != kNoCause) {
                note_gap(stats.min_gap_raw_ns, r.raw(e) - latest_enter[0]);
                note_gap(stats.min_gap_corrected_ns, r.interp(e) - latest_enter[1]);
              }
            }
          } else if (in.number < r.check_arrived[in.index].size()) {
            const Triple& send = r.check_arrived[in.index][in.number];
            cause = max_of(cause, send);
            note_gap(stats.min_gap_raw_ns, r.raw(e) - send[0]);
            note_gap(stats.min_gap_corrected_ns, r.interp(e) - send[1]);
          }
        }
        stats.violations_raw += r.raw(e) < cause[0];
        stats.violations_before += r.interp(e) < cause[1];
        stats.violations_after += r.lc[e] < cause[2];
      }
      for (std::uint64_t e = 0; e < r.events(); ++e) {
        const std::int64_t shift = r.lc[e] - r.interp(e);
        stats.events_moved += shift != 0;
        stats.max_shift_ns = std::max(stats.max_shift_ns, shift);
        stats.shift_sum_ns += static_cast<double>(shift);
        if (e > 0) {
          const std::int64_t old_interval = r.interp(e) - r.interp(e - 1);
          const std::int64_t new_interval = r.lc[e] - r.lc[e - 1];
          stats.interval_change_sum_ns +=
              std::abs(static_cast<double>(new_interval - old_interval));
          ++stats.intervals;
        }
      }
      stats.events += r.events();
    }
  }

  // ---- items
  void handle(const ReplayItem& item) {
    switch (item.type) {
      case ReplayItemType::member:
        members[item.comm].push_back(item.source);
        break;
      case ReplayItemType::member_count:
        if (auto* r = local(item.destination)) {
          r->comm_members[item.comm] = static_cast<std::int32_t>(item.number);
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
      case ReplayItemType::enter:
        hub_enter(item, false);
        break;
      case ReplayItemType::check_enter:
        hub_enter(item, true);
        hub_wait(item);
        break;
      case ReplayItemType::check_back:
        if (auto [r, idx] = send_channel(item); r) r->posted_back[idx][item.number] = item.value[0];
        break;
      case ReplayItemType::enter_reply:
      case ReplayItemType::check_reply:
      case ReplayItemType::exit_back_reply:
      case ReplayItemType::wait_reply:
        if (auto* r = local(item.destination)) {
          auto it = r->collective_index.find({item.comm, item.number});
          if (it == r->collective_index.end()) break;
          const std::uint32_t i = it->second;
          if (item.type == ReplayItemType::enter_reply) {
            r->reply[i] = item.value[0];
            r->replied[i] = 1;
          } else if (item.type == ReplayItemType::check_reply) {
            r->check_reply[i] = {item.value[0], item.value[1], item.value[2]};
            r->check_replied[i] = 1;
          } else if (item.type == ReplayItemType::wait_reply) {
            r->until[i] = item.value[0];
          } else {
            const auto e = 2 * r->items.collectives[i].member.enter.record;
            r->lower_bound_of(e, item.value[0]);
          }
        }
        break;
      case ReplayItemType::message_back:
        if (auto [r, idx] = send_channel(item); r) {
          r->lower_bound_of(r->send_events[idx][item.number], item.value[0] - p.min_latency_ns);
        }
        break;
      case ReplayItemType::exit_back:
        hub_exit(item);
        break;
    }
  }

  ReplayTally tally() const {
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

  // Returns true when the replay is over; `total` then holds the whole trace's statistics.
  bool on_round(const ReplayTally& t, ReplayStats& total) {
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
        // Every member learns its communicators' sizes from their homes.
        for (const auto& [comm, ranks_in] : members) {
          for (const auto world : ranks_in) {
            ReplayItem item;
            item.type = ReplayItemType::member_count;
            item.comm = comm;
            item.destination = world;
            item.number = ranks_in.size();
            post(dir.process_of(world), item);
          }
        }
        members.clear();
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
          forward_hub.clear();
          start_backward();
          phase = Phase::backward;
        }
        break;
      case Phase::backward:
        backward_hub.clear();
        amortize();
        start_check();
        phase = Phase::check;
        break;
      case Phase::check:
        count_violations();
        check_hub.clear();
        wait_hub.clear();
        phase = Phase::stats;
        break;
      case Phase::stats:
      case Phase::done:
        break;
    }
    return false;
  }
};

ParallelSync::ParallelSync(ReplayNetwork& network, std::vector<model::RankTrace*> ranks,
                           ReplayDirectory directory, const ClcParams& params)
    : m_impl(std::make_unique<Impl>(network, std::move(directory), params)) {
  m_result.params = params;
  for (auto* trace : ranks) {
    RankState r;
    r.trace = trace;
    r.world = trace->rank;
    r.position = static_cast<std::size_t>(trace->rank) < m_impl->dir.position_of_rank.size()
                     ? m_impl->dir.position_of_rank[static_cast<std::size_t>(trace->rank)]
                     : 0;
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
    for (const auto& item : batch) s.handle(item);
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
    p.items = std::move(r.items);
  }
  return out;
}

TraceSyncResult synchronize_trace_by_replay(model::Trace& trace, ClcParams params, int processes,
                                            std::vector<RankPartners>* partners,
                                            std::uint64_t* complete_collectives) {
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
    return result;
  };
  return synchronize_with_plan(replay_once, params, trace.min_latency_ns);
}

}  // namespace mpidle::sync
