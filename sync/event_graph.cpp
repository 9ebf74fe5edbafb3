#include "event_graph.hpp"

namespace mpidle::sync {

EventGraph::EventGraph(std::vector<std::size_t> events_per_rank) {
  m_base.reserve(events_per_rank.size() + 1);
  std::size_t total = 0;
  for (auto n : events_per_rank) {
    m_base.push_back(total);
    total += n;
  }
  m_base.push_back(total);
}

void EventGraph::message(EventRef send, EventRef recv) {
  m_edges.push_back({node(send), node(recv), true});
}

void EventGraph::one_to_n(EventRef root_enter, std::span<const EventRef> exits) {
  for (const auto& exit : exits) {
    if (exit.rank != root_enter.rank) m_edges.push_back({node(root_enter), node(exit), true});
  }
}

void EventGraph::n_to_one(std::span<const EventRef> enters, EventRef root_exit) {
  for (const auto& enter : enters) {
    if (enter.rank != root_exit.rank) m_edges.push_back({node(enter), node(root_exit), true});
  }
}

void EventGraph::n_to_n(std::span<const EventRef> enters, std::span<const EventRef> exits) {
  const NodeId hub = new_hub();
  for (const auto& enter : enters) m_edges.push_back({node(enter), hub, true});
  for (const auto& exit : exits) m_edges.push_back({hub, node(exit), false});
}

void EventGraph::scan(std::span<const EventRef> enters,
                      std::span<const std::optional<EventRef>> exits, bool exclusive) {
  // A chain of hubs: hub n holds the latest enter of ranks 0..n.
  NodeId previous = 0;
  for (std::size_t n = 0; n < enters.size() && n < exits.size(); ++n) {
    const NodeId hub = new_hub();
    if (n > 0) m_edges.push_back({previous, hub, false});
    m_edges.push_back({node(enters[n]), hub, true});
    if (!exits[n]) {
      // no exit recorded: nothing waits here
    } else if (exclusive) {
      if (n > 0) m_edges.push_back({previous, node(*exits[n]), false});
    } else {
      m_edges.push_back({hub, node(*exits[n]), false});
    }
    previous = hub;
  }
}

}  // namespace mpidle::sync
