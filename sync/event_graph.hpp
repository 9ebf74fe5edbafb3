#pragma once
// What must happen before what, across ranks: the happened-before relation that
// clock synchronization has to restore. Point-to-point messages are edges from a
// send to its receive. Collectives are decomposed into send/receive sets (Becker,
// Rabenseifner, Wolf 2007) through "hub" nodes, so that an N-to-N collective
// costs 2N edges instead of N².

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace mpidle::sync {

struct EventRef {
  std::uint32_t rank = 0;
  std::uint64_t index = 0;  // position in the rank's event sequence
};

class EventGraph {
 public:
  // Events and hubs of the whole trace: 64-bit, since 10^4 ranks × 10^6 calls are
  // already 2·10^10 events.
  using NodeId = std::uint64_t;

  // 16 bytes: the flag shares a word with `to` (2^63 nodes are enough).
  struct Edge {
    NodeId from;
    NodeId to : 63;
    NodeId message : 1;  // 1: the minimum latency applies (sender side of a transfer)
  };

  explicit EventGraph(std::vector<std::size_t> events_per_rank);

  // A point-to-point message: `recv` cannot precede `send` + latency.
  void message(EventRef send, EventRef recv);
  // Bcast, Scatter(v): the root's enter → every exit.
  void one_to_n(EventRef root_enter, std::span<const EventRef> exits);
  // Reduce, Gather(v): every enter → the root's exit.
  void n_to_one(std::span<const EventRef> enters, EventRef root_exit);
  // Allreduce, Allgather(v), Alltoall(v/w), Reduce_scatter, Barrier: every enter → every exit.
  void n_to_n(std::span<const EventRef> enters, std::span<const EventRef> exits);
  // Scan (inclusive) / Exscan: enters and exits in rank order (an exit may be
  // missing); exit n depends on the enters of ranks 0..n (Scan) or 0..n−1 (Exscan).
  void scan(std::span<const EventRef> enters, std::span<const std::optional<EventRef>> exits,
            bool exclusive);

  std::size_t ranks() const { return m_base.size() - 1; }
  std::size_t events(std::size_t rank) const { return m_base[rank + 1] - m_base[rank]; }
  std::size_t event_count() const { return m_base.back(); }
  std::size_t node_count() const { return m_base.back() + m_hubs; }
  NodeId node(EventRef e) const { return static_cast<NodeId>(m_base[e.rank] + e.index); }
  std::size_t first_node(std::size_t rank) const { return m_base[rank]; }
  bool is_hub(NodeId n) const { return n >= m_base.back(); }
  const std::vector<Edge>& edges() const { return m_edges; }

 private:
  NodeId new_hub() { return static_cast<NodeId>(m_base.back() + m_hubs++); }

  std::vector<std::size_t> m_base;  // first node of each rank; back() = events in all
  std::size_t m_hubs = 0;
  std::vector<Edge> m_edges;
};

}  // namespace mpidle::sync
