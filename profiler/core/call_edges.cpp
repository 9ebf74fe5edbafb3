#include "profiler/core/call_edges.hpp"

#include <algorithm>
#include <mutex>

#include "profiler/core/trace_windows.hpp"

namespace mpidle::profiler {
namespace {

// Two owners may move their edges at once (a window closes on one thread while a
// checkpoint is placed on another): the minimum is taken under a lock, off the
// hot path.
std::mutex g_edges_mutex;
std::atomic<CheckpointDue> g_checkpoint_due{nullptr};

void publish_next_edge() {
  detail::g_next_edge.store(std::min(detail::g_window_edge.load(std::memory_order_relaxed),
                                     detail::g_checkpoint_edge.load(std::memory_order_relaxed)),
                            std::memory_order_release);
}

}  // namespace

void set_window_edge(Ticks edge) {
  std::lock_guard lock(g_edges_mutex);
  detail::g_window_edge.store(edge, std::memory_order_relaxed);
  publish_next_edge();
}

void set_checkpoint_edge(Ticks edge) {
  std::lock_guard lock(g_edges_mutex);
  detail::g_checkpoint_edge.store(edge, std::memory_order_relaxed);
  publish_next_edge();
}

void on_checkpoint_due(CheckpointDue due) {
  g_checkpoint_due.store(due, std::memory_order_release);
}

void cross_edge(Ticks now) {
  if (now >= detail::g_window_edge.load(std::memory_order_relaxed)) trace_windows().cross(now);
  if (now >= detail::g_checkpoint_edge.load(std::memory_order_relaxed)) {
    if (const CheckpointDue due = g_checkpoint_due.load(std::memory_order_acquire)) due(now);
  }
}

}  // namespace mpidle::profiler
