#pragma once
// The late-receiver rule, one copy for the windows, the parallel replay and the
// sequential analysis (docs/calibration.md, "Late receiver"). A blocking send that
// overlapped its receive's post waited for its receiver when it could not complete
// without it: a synchronous send, or one of a class (function, size class) whose
// sends, anywhere in the data, did not complete before their receive was posted (a
// rendezvous protocol, whatever its threshold). A class is eager where more than a
// fifth of its sends that began before their post ended before it: a rendezvous
// send cannot, so a stray one (a message paired a step off at a window's edge, a
// clock error) must not turn a systematic late receiver into 0. A send of an eager
// class waited only with evidence of its own: a blocking one took more than twice
// the class's fastest send (or the call completing it, the fastest such call), as
// eager sends block when their buffers are full. The classes' facts are merged over
// all ranks before any send is judged.
// Pure C++, no MPI.

#include <cstdint>
#include <map>
#include <utility>

#include "model/trace_file.hpp"

namespace mpidle::analysis {

struct SendClass {
  // The fastest matched blocking send of the class, or call completing an Isend of it.
  std::int64_t fastest_ns = 0;
  // Of its sends that began before their receive was posted: those that ended before
  // the post, and those held past it.
  std::uint64_t ended_before_post = 0;
  std::uint64_t held_past_post = 0;
};
// Whether sends of the class complete without their receive (an eager protocol).
bool eager(const SendClass& c);
// By (function, size class).
using SendClasses = std::map<std::pair<std::uint32_t, std::int32_t>, SendClass>;

// The sends the rule judges: blocking sends, not a Sendrecv's send half.
bool judged_send(const model::TraceRecord& send);

// Adds a matched judged send (enter, exit) whose receive was posted at `post`.
void note_send(SendClasses& classes, const model::TraceRecord& send, std::int64_t enter,
               std::int64_t exit, std::int64_t post);
void merge_send_classes(SendClasses& into, const SendClasses& from);

// Whether the judged send waited for its receive's post (then until the post).
bool waited_for_receiver(const SendClasses& classes, const model::TraceRecord& send,
                         std::int64_t enter, std::int64_t exit, std::int64_t post);

}  // namespace mpidle::analysis
