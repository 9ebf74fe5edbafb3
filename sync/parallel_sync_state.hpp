#pragma once
// The parallel replay's state (parallel_sync.hpp), shared by the files of its
// phases: each rank's replay state, a collective instance at one member's node of
// its tree, and ParallelSync::Impl, whose member functions live in the file of their phase:
//   parallel_sync.cpp             the driver: items, batches, rounds and phases
//   parallel_sync_membership.cpp  who takes part in what, where items land
//   parallel_sync_forward.cpp     the forward replay of each rank
//   parallel_sync_tree.cpp        collective instances over their members' trees
//   parallel_sync_backward.cpp    the backward replay and amortization
//   parallel_sync_check.cpp       the clock condition and the collectives' waits
// Private to those files.

#include <algorithm>
#include <array>
#include <deque>
#include <functional>
#include <map>

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

// The parent of node i > 0 in a binomial tree numbered from 0: i without its
// lowest set bit.
inline std::size_t binomial_parent(std::size_t i) {
  return i & (i - 1);
}

// A communicator's tree over its members: numbered in scan order where the
// members' scans give one, else by world rank, in blocks of 2^⌈L/2⌉ numbers (L =
// ⌈log2 P⌉), each numbered at its own process, so that no process numbers more
// than about √P members. In a block, a binomial tree from its first member; the
// blocks' first members make a binomial tree of their own, in block order. Node
// i's children come after it, each subtree a contiguous range of the numbering,
// and a member is at most L levels below the top.
struct CommTree {
  std::int32_t index = 0, size = 0;  // index: block × block size + place in the block
  bool top = true;
  std::int32_t parent = -1;                                     // world rank; −1 at the top
  std::vector<std::pair<std::int32_t, std::int32_t>> children;  // (index, world rank), ascending
};

struct RankState {
  model::RankTrace* trace = nullptr;
  std::uint32_t position = 0;
  std::int32_t world = 0;
  OffsetModel model;  // interpolation to rank 0's timeline, applied as needed
  // Corrected times; forward jumps (event, size; only those > 0); how late each
  // cause with effects on other ranks may become (the backward replay's).
  model::LargeArray<std::int64_t> lc;  // file-backed in a finalize out of core
  model::LargeArray<std::pair<std::uint64_t, std::int64_t>> jumps;
  model::LargeArray<std::uint64_t> bounded;  // events with effects elsewhere, ascending
  model::LargeArray<std::int64_t> latest;    // by `bounded`

  void lower_bound_of(std::uint64_t e, std::int64_t value) {
    auto it = std::lower_bound(bounded.begin(), bounded.end(), e);
    if (it == bounded.end() || *it != e) return;
    auto& b = latest[static_cast<std::size_t>(it - bounded.begin())];
    b = std::min(b, value);
  }
  RankMatchItems items;

  std::vector<ChannelKey> send_keys;
  std::unordered_map<ChannelKey, std::uint32_t, ChannelHash> send_index;
  std::vector<model::LargeArray<std::uint64_t>> send_events;  // per send channel, by k

  std::vector<ChannelKey> receive_keys;
  std::unordered_map<ChannelKey, std::uint32_t, ChannelHash> receive_index;
  std::vector<std::uint64_t> matched;                                    // per receive channel
  std::unordered_map<ChannelKey, std::uint64_t, ChannelHash> announced;  // sends per channel
  std::vector<model::LargeArray<std::int64_t>> arrived;  // per receive channel, by k
  std::vector<model::LargeArray<Triple>> check_arrived;

  std::unordered_map<InstanceKey, std::uint32_t, InstanceHash> collective_index;
  std::unordered_map<std::uint32_t, CommTree> trees;         // from each comm's home
  std::vector<model::LargeArray<std::int64_t>> posted_back;  // per send channel, by k
  model::LargeArray<std::int64_t> until;                     // per collective item
  model::LargeArray<std::uint8_t> complete;                  // per collective item
  model::LargeArray<std::int64_t> reply;  // per collective item (kNever: no constraint)
  model::LargeArray<Triple> check_reply;
  model::LargeArray<std::uint8_t> replied, check_replied;

  model::LargeArray<Incoming> incoming;  // by event
  model::LargeArray<Outgoing> outgoing;  // by event
  std::uint64_t cursor = 0;
  std::size_t next_in = 0, next_out = 0;

  std::uint64_t events() const { return 2 * trace->records.size(); }
  std::int64_t interp(std::uint64_t e) const { return model.to_reference(raw(e)); }
  std::int64_t raw(std::uint64_t e) const {
    const auto& r = trace->records[e / 2];
    return e % 2 ? r.exit_ns : r.enter_ns;
  }
};

// The replays that pass collective instances over the trees.
enum class Stage : std::uint8_t { forward, check, backward };

// What a subtree of an instance's members adds up to; each (stage, kind) uses the
// fields it needs (tree_sum_of in parallel_sync_tree.cpp):
//   value     the latest enter (n-to-n, scans; n-to-1: of the non-roots), or the
//             root's (1-to-N forward and check; N-to-1's exit, backward)
//   aux       the earliest time: N-to-1 non-roots' synchronized enter (check), or
//             the exits the backward bounds come from
//   flag      the root is in the subtree (with the time `value` holds)
//   complete  every member blocking with an exit (check); entered (backward)
struct TreeSum {
  Triple value = kNoCause;
  std::int64_t aux = kUnbounded;
  bool flag = false;
  bool complete = true;
  std::uint8_t hops = 0;  // the longest chain of items behind it
};

// One member's node of one instance's tree, in one stage.
struct TreeNode {
  bool own = false;  // the member's own item came
  ReplayItem mine;
  std::uint32_t item = 0;  // the member's collective item
  std::uint8_t kind = 0;
  std::int32_t root = -1;
  TreeSum sub;  // own + the children's that reported
  std::uint32_t reported = 0;
  std::vector<TreeSum> child_sum;  // by child
  std::vector<std::uint8_t> child_in, context_sent;
  bool up_sent = false;
  // A 1-to-N root's time (forward and check): it goes up to the top and down from
  // there at once, as the members need nothing else.
  bool root_known = false, root_from_above = false, root_up_sent = false, root_down_sent = false;
  Triple root_value = kNoCause;
  std::uint8_t root_hops = 0;
  // Scans: what the orders before this subtree add up to (forward, check), or the
  // earliest exit of those after it (backward).
  bool context_known = false;
  Triple context = kNoCause;
  std::int64_t context_min = kUnbounded;
  std::uint8_t context_hops = 0;
  bool total_known = false, total_sent = false;
  TreeSum total;
  bool replied = false, waited = false;
};

struct TreeKey {
  std::int32_t world = 0;
  std::uint32_t comm = 0;
  std::uint64_t instance = 0;
  bool operator==(const TreeKey&) const = default;
};
struct TreeKeyHash {
  std::size_t operator()(const TreeKey& k) const {
    return static_cast<std::size_t>(
        mix(k.comm ^ mix(k.instance ^ mix(static_cast<std::uint32_t>(k.world)))));
  }
};

enum class Phase {
  membership,
  member_blocks,
  member_counts,
  forward,
  backward,
  check,
  stats,
  done
};

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
  // The members of the communicators' blocks this process numbers: (number to
  // sort by, world rank), by (communicator, block).
  std::map<std::pair<std::uint32_t, std::int32_t>,
           std::vector<std::pair<std::int32_t, std::int32_t>>>
      members;
  // At each communicator's home: its blocks (block, members, first member's world rank).
  std::unordered_map<std::uint32_t, std::vector<std::array<std::int32_t, 3>>> blocks;
  // The collective instances' tree nodes of this process' ranks, by stage.
  std::array<std::unordered_map<TreeKey, TreeNode, TreeKeyHash>, 3> trees;
  // Items from this process to itself, handled in turn (never inside another's
  // handling, which may be holding a tree node).
  std::deque<ReplayItem> local_items;
  bool draining = false;
  std::vector<std::int64_t> scratch;

  Impl(ReplayNetwork& n, ReplayDirectory d, const ClcParams& params)
      : net(n), dir(std::move(d)), p(params) {}

  // A communicator's home places its blocks, and each block's process numbers its
  // members (once; the communicator's collectives then go over the members' tree).
  int home_of(std::uint32_t comm) const {
    return static_cast<int>(mix(comm) % static_cast<std::uint64_t>(net.processes()));
  }
  int block_home_of(std::uint32_t comm, std::int32_t block) const {
    return static_cast<int>(mix(comm ^ mix(static_cast<std::uint32_t>(block) + 0x51ull)) %
                            static_cast<std::uint64_t>(net.processes()));
  }
  // log2 of the numbers in a block: half of ⌈log2⌉ of the ranks there can be.
  int block_bits() const {
    int bits = 0;
    while ((std::int64_t{1} << bits) < std::max<std::int64_t>(2, dir.ranks())) ++bits;
    return (bits + 1) / 2;
  }

  RankState* local(std::int32_t world) {
    auto it = local_of_world.find(world);
    return it == local_of_world.end() ? nullptr : &ranks[it->second];
  }

  void post(int process, const ReplayItem& item);

  // Handles this process' items to itself, unless that is under way already.
  void drain();

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

  // A member's item of a collective instance (its times still to be filled in).
  ReplayItem collective_item(const RankState& r, const CollectiveItem& c);

  void emit(RankState& r, const Outgoing& out, const Triple& values, bool check);

  // Walks the rank's events as far as their causes allow (`force`: the first one
  // goes regardless, as the sequential replay breaks a cycle).
  bool run(RankState& r, bool force);

  void force(std::int64_t position);

  // ---- trees: a collective instance's members' times → what each one's exit
  // waits for (forward, check) or how late its enter may become (backward), over
  // the members' binomial tree: up to the top, and down again, 2⌈log2 N⌉ hops.
  // Membership's last steps: the home places the blocks, a block's process its members.
  void place_blocks();
  void place_members(const ReplayItem& block);
  void member_count(const ReplayItem& item);

  // A member's own item (its enter, or its exit for the backward replay).
  void tree_arrive(Stage stage, RankState& r, std::uint32_t item_index, const ReplayItem& item);

  void tree_item(const ReplayItem& item);

  TreeNode* tree_node(Stage stage, RankState& r, std::uint32_t comm, std::uint64_t instance);

  // Sends, and gives the member, whatever the node now knows.
  void advance(Stage stage, RankState& r, const TreeKey& key, TreeNode& n);

  void deliver(Stage stage, RankState& r, TreeNode& n);

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

  void amortize();

  // ---- the clock condition, before and after
  void start_check();

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
