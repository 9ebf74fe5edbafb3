#include "send_classes.hpp"

#include <algorithm>

#include "model/profile_tables.hpp"

namespace mpidle::analysis {
namespace {

std::pair<std::uint32_t, std::int32_t> class_of(const model::TraceRecord& send) {
  return {send.function, model::size_class(send.bytes)};
}

void merge(SendClass& into, const SendClass& from) {
  into.fastest_ns = std::min(into.fastest_ns, from.fastest_ns);
  into.ended_before_post += from.ended_before_post;
  into.held_past_post += from.held_past_post;
}

}  // namespace

bool eager(const SendClass& c) {
  return c.ended_before_post * 4 > c.held_past_post;
}

bool judged_send(const model::TraceRecord& send) {
  return send.role == model::TraceRole::send && send.extra == 0;
}

void note_send(SendClasses& classes, const model::TraceRecord& send, std::int64_t enter,
               std::int64_t exit, std::int64_t post) {
  SendClass seen{exit - enter, 0, 0};
  if (post > enter) (exit < post ? seen.ended_before_post : seen.held_past_post) = 1;
  auto [at, added] = classes.try_emplace(class_of(send), seen);
  if (!added) merge(at->second, seen);
}

void merge_send_classes(SendClasses& into, const SendClasses& from) {
  for (const auto& [key, c] : from) {
    auto [at, added] = into.try_emplace(key, c);
    if (!added) merge(at->second, c);
  }
}

bool waited_for_receiver(const SendClasses& classes, const model::TraceRecord& send,
                         std::int64_t enter, std::int64_t exit, std::int64_t post) {
  if (exit <= post || post <= enter) return false;
  if ((send.flags & model::kTraceSynchronous) != 0) return true;
  const auto c = classes.find(class_of(send));
  // Sends of its class do not end before their receive is posted: they wait for it.
  if (c == classes.end() || !eager(c->second)) return true;
  // An eager send (or the call completing an eager Isend) waited only with evidence
  // of its own: it took more than twice the class's fastest (its buffers were full,
  // or the MPI completes such a request only once the receive is posted, as Open
  // MPI's shared memory did for some 1 KiB Isends).
  return exit - enter > 2 * c->second.fastest_ns;
}

}  // namespace mpidle::analysis
