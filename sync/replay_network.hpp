#pragma once
// How the processes of a parallel replay talk: batches of fixed-size items sent to
// another process, and one non-blocking reduction of a small tally at a time. The
// profiler and mpidle-replay implement it over MPI; LoopbackNetwork runs several
// replay processes in one thread (tests, and one process replaying a whole trace).
// No MPI here.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

namespace mpidle::sync {

enum class ReplayItemType : std::uint8_t {
  member = 1,     // a rank takes part in collectives on `comm` (to its block's process)
  block_count,    // how many members a block of `comm` has, and its first (to comm's home)
  block_place,    // a block's place in `comm`'s tree: size, parent (from the home)
  member_count,   // a member's place in `comm`'s tree: index, size, parent (from its block)
  tree_child,     // a member is a child of the receiving member in `comm`'s tree
  channel_count,  // how many messages a rank sent on a channel (to the receiver)
  message,        // a send's time (to the receiver): forward replay
  message_back,   // a receive's time (to the sender): backward replay
  check_message,  // a send's raw, interpolated and final times: clock-condition check
  check_back,     // where a receive was posted, synchronized (to the sender)
  // A collective instance's tree (`stage`: forward, check or backward replay):
  tree_up,         // what a member's subtree adds up to (to its parent)
  tree_root_up,    // a 1-to-N root's time, on its way to the top (to the parent)
  tree_root_down,  // a 1-to-N root's time, from the top down (to a child)
  tree_total,      // what the whole instance adds up to, from the top down (to a child)
  tree_context,    // a scan: what comes before (or after) the child's subtree (to a child)
};

struct ReplayItem {
  std::int64_t value[3] = {0, 0, 0};
  std::uint64_t number = 0;  // position on a channel, collective instance, or a count
  std::int64_t aux = 0;      // a tree item's second time (see TreeSum)
  std::uint32_t comm = 0;
  std::int32_t source = -1;       // world rank: a message's sender, or a collective's member
  std::int32_t destination = -1;  // world rank: a message's receiver, or a tree item's node
  std::int32_t tag = -1;          // a message's tag; a member item's block
  std::int32_t order = 0;         // a scan member's rank in the communicator; a tree index
  std::int32_t root = -1;
  ReplayItemType type = ReplayItemType::member;
  std::uint8_t kind = 0;      // model::CollectiveKind
  std::uint8_t wants = 0;     // 1: the member waits for a reply; tree items: TreeSum's flag
  std::uint8_t has_exit = 0;  // the member recorded an exit; tree items: TreeSum's complete
  std::uint8_t blocking = 0;  // the member's call was a blocking collective
  std::uint8_t stage = 0;     // a tree item's replay stage
  std::uint8_t hops = 0;      // a tree item: the longest chain of items behind it
};
static_assert(sizeof(ReplayItem) == 72);

// Statistics of the replay, summed (or maxed) over processes.
struct ReplayStats {
  std::uint64_t violations_raw = 0;
  std::uint64_t violations_before = 0;
  std::uint64_t violations_after = 0;
  std::uint64_t events_moved = 0;
  std::uint64_t unresolved = 0;
  std::uint64_t messages = 0;
  std::uint64_t unmatched_sends = 0;
  std::uint64_t unmatched_receives = 0;
  std::uint64_t cancelled = 0;
  std::uint64_t complete_collectives = 0;  // instances every member entered and left, blocking
  // The longest chain of items (tree hops) that gave a collective member its reply.
  std::uint64_t collective_rounds = 0;
  std::uint64_t events = 0;
  std::uint64_t intervals = 0;
  std::int64_t max_shift_ns = 0;
  double shift_sum_ns = 0;
  double interval_change_sum_ns = 0;
  // The shortest matched message (receive exit − send enter) or collective (a
  // member's exit − the latest enter it waits for), in raw and in corrected times
  // (those that violate the clock condition left out).
  std::int64_t min_gap_raw_ns = INT64_MAX;
  std::int64_t min_gap_corrected_ns = INT64_MAX;
};

struct ReplayTally {
  std::uint64_t sent = 0;        // items sent to other processes since the start
  std::uint64_t received = 0;    // items received from other processes since the start
  std::uint64_t unfinished = 0;  // ranks whose forward replay has not reached their end
  // The earliest event a rank is blocked at (its interpolated time, then the
  // rank's position): where a cycle in an inconsistent trace is broken.
  std::int64_t blocked_time = INT64_MAX;
  std::int64_t blocked_position = INT64_MAX;
  ReplayStats stats;
};

ReplayTally combine(const ReplayTally& a, const ReplayTally& b);

class ReplayNetwork {
 public:
  virtual ~ReplayNetwork() = default;
  virtual int processes() const = 0;
  virtual int self() const = 0;
  // Hands a batch over for another process; returns at once. Batches between two
  // processes arrive in the order they were sent.
  virtual void send(int process, std::vector<ReplayItem>&& batch) = 0;
  // A batch that arrived, if any.
  virtual bool receive(std::vector<ReplayItem>& batch) = 0;
  // Starts the next reduction (every process starts the same sequence of them).
  virtual void start_reduction(const ReplayTally& tally) = 0;
  // Whether the current reduction finished; then `out` is every process' tally combined.
  virtual bool reduction_done(ReplayTally& out) = 0;
  // This process can do nothing until something arrives: let others run (with
  // more processes than cores, a process spinning here holds up the one it waits for).
  virtual void idle() {}
};

// Several replay processes in one thread, each with its own LoopbackNetwork.
class Loopback {
 public:
  explicit Loopback(int processes);
  ReplayNetwork& network(int process) { return *m_networks[static_cast<std::size_t>(process)]; }

 private:
  friend class LoopbackNetwork;
  struct Round {
    int contributed = 0;
    int collected = 0;
    ReplayTally total;
  };
  int m_processes;
  std::vector<std::deque<std::vector<ReplayItem>>> m_inbox;
  std::map<std::uint64_t, Round> m_rounds;
  std::vector<std::unique_ptr<ReplayNetwork>> m_networks;
};

}  // namespace mpidle::sync
