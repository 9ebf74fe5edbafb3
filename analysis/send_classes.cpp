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
  into.completes_before_post = into.completes_before_post || from.completes_before_post;
}

}  // namespace

bool judged_send(const model::TraceRecord& send) {
  return send.role == model::TraceRole::send && send.extra == 0;
}

void note_send(SendClasses& classes, const model::TraceRecord& send, std::int64_t enter,
               std::int64_t exit, std::int64_t post) {
  const SendClass seen{exit - enter, exit < post};
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
  // No send of its class ever ended before its receive was posted: they wait for it.
  if (c == classes.end() || !c->second.completes_before_post) return true;
  // An eager Isend's completion needs no receiver: nothing to judge by (its Wait
  // may come at any time after the send).
  if (send.role == model::TraceRole::isend) return false;
  return exit - enter > 2 * c->second.fastest_ns;
}

}  // namespace mpidle::analysis
