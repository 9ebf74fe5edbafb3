#pragma once
// The parallel replay's state (parallel_sync.hpp), shared by the files of its
// phases: each rank's replay state, a collective instance at its hub, and
// ParallelSync::Impl, whose member functions live in the file of their phase:
//   parallel_sync.cpp             the driver: items, batches, rounds and phases
//   parallel_sync_membership.cpp  who takes part in what, where items land
//   parallel_sync_forward.cpp     the forward replay of each rank
//   parallel_sync_hubs.cpp        collective instances at their hub
//   parallel_sync_backward.cpp    the backward replay and amortization
//   parallel_sync_check.cpp       the clock condition and the collectives' waits
// Private to those files.

#include <algorithm>
#include <array>
#include <functional>

#include "clock_plan.hpp"
#include "parallel_sync.hpp"
#include "trace_matching.hpp"

namespace mpidle::sync {
namespace parallel_replay {

using model::CollectiveKind;
inline constexpr std::int64_t kNever = kClcNever;
inline constexpr std::int64_t kUnbounded = kClcUnbounded;
inline constexpr std::size_t kBatchItems =
    4096;  // items per batch before it leaves without waiting

using Triple = std::array<std::int64_t, 3>;
inline constexpr Triple kNoCause = {kNever, kNever, kNever};

inline std::uint64_t mix(std::uint64_t x) {
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

inline ChannelKey channel_of(const ReplayItem& item) {
  return {item.comm, item.source, item.destination, item.tag};
}

inline Triple max_of(const Triple& a, const Triple& b) {
  return {std::max(a[0], b[0]), std::max(a[1], b[1]), std::max(a[2], b[2])};
}

// Whether a member's exit depends on other members (see add_collective in trace_sync).
inline bool exit_waits(const CollectiveItem& c) {
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

}  // namespace parallel_replay

// Only the replay's own files include this header.
using namespace parallel_replay;

struct ParallelSync::Impl {
  ReplayNetwork& net;
  ReplayDirectory dir;
  ClcParams p;
  std::vector<RankState> ranks;
  std::unordered_map<std::int32_t, std::size_t> local_of_world;
  // Items waiting to leave, by destination process: only the destinations with
  // some, so that neither memory nor a step's flush grows with the process count.
  std::unordered_map<int, std::vector<ReplayItem>> outbox;
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
      : net(n), dir(std::move(d)), p(params) {}

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

  void post(int process, const ReplayItem& item);

  void flush(int process);

  void flush_all();

  // ---- membership: who takes part in which communicator's collectives, and how
  // many messages each channel carries.
  void start();

  // Where items for this rank land; built before any can arrive (a process can
  // enter the next phase while this one still finishes the last).
  void index(RankState& r);

  // ---- forward replay
  void start_forward();

  bool cause_of(const RankState& r, const Incoming& in, std::int64_t& value) const;

  ReplayItem collective_item(const RankState& r, const CollectiveItem& c, ReplayItemType type);

  void emit(RankState& r, const Outgoing& out, const Triple& values, bool check);

  // Walks the rank's events as far as their causes allow (`force`: the first one
  // goes regardless, as the sequential replay breaks a cycle).
  bool run(RankState& r, bool force);

  void force(std::int64_t position);

  // ---- hubs: a collective's members' enter times → what each member's exit waits for.
  void reply(ReplayItemType type, const InstanceKey& key, std::int32_t member, const Triple& v);

  void hub_enter(const ReplayItem& item, bool check);

  void hub_scan(ForwardInstance& h, const ReplayItem& item, const Triple& v, std::uint32_t expected,
                const InstanceKey& key, ReplayItemType reply_type);

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
  std::pair<RankState*, std::uint32_t> send_channel(const ReplayItem& item);

  // ---- backward replay: how late each cause may become.
  void start_backward();

  // How many members the item's collective has (each member's items carry it).
  static std::uint32_t members_of(const ReplayItem& item) {
    return static_cast<std::uint32_t>(std::max(item.tag, 0));
  }

  // Keeps a member's item with its instance; the instance's items once every
  // member's has come (the caller then erases the instance), else null.
  std::vector<ReplayItem>* all_members(
      std::unordered_map<InstanceKey, BackwardInstance, InstanceHash>& hub, const ReplayItem& item);

  void hub_exit(const ReplayItem& item);

  void amortize();

  // ---- the clock condition, before and after
  void start_check();

  // A collective's members' synchronized enters → until when each waited, as
  // analysis::analyze_wait_states measures it (complete, blocking instances only).
  void hub_wait(const ReplayItem& item);

  static void note_gap(std::int64_t& smallest, std::int64_t gap) {
    if (gap >= 0) smallest = std::min(smallest, gap);
  }

  void count_violations();

  // ---- items
  void handle(const ReplayItem& item);

  ReplayTally tally() const;

  // Returns true when the replay is over; `total` then holds the whole trace's statistics.
  bool on_round(const ReplayTally& t, ReplayStats& total);
};

}  // namespace mpidle::sync
