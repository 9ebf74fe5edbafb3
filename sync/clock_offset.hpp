#pragma once
// Offset of a remote clock by Cristian's method (as MPE/CLOG does): the reference
// asks for the remote time several times and keeps the reading with the shortest
// round trip, assuming the reply was taken halfway through it.

#include <cstdint>
#include <optional>
#include <span>

namespace mpidle::sync {

// One remote clock reading, all in nanoseconds: the reference's clock when it
// asked and when the answer came back, and the remote clock in between.
struct ClockSample {
  std::int64_t ask_ns = 0;
  std::int64_t remote_ns = 0;
  std::int64_t answer_ns = 0;
};

struct OffsetEstimate {
  std::int64_t offset_ns = 0;  // remote − reference
  std::int64_t rtt_ns = 0;     // of the sample used
  std::int64_t at_ns = 0;      // reference time of the sample's midpoint
};

// Empty when there are no usable samples (all with negative round trips).
std::optional<OffsetEstimate> estimate_offset(std::span<const ClockSample> samples);

// Offsets compose along a tree: a's offset to the root is a's offset to its parent
// plus the parent's offset to the root.
OffsetEstimate compose(const OffsetEstimate& to_parent, const OffsetEstimate& parent_to_root);

}  // namespace mpidle::sync
