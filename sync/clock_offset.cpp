#include "clock_offset.hpp"

namespace mpidle::sync {

std::optional<OffsetEstimate> estimate_offset(std::span<const ClockSample> samples) {
  std::optional<OffsetEstimate> best;
  for (const auto& s : samples) {
    const std::int64_t rtt = s.answer_ns - s.ask_ns;
    if (rtt < 0) continue;
    if (!best || rtt < best->rtt_ns) {
      const std::int64_t midpoint = s.ask_ns + rtt / 2;
      best = OffsetEstimate{s.remote_ns - midpoint, rtt, midpoint};
    }
  }
  return best;
}

OffsetEstimate compose(const OffsetEstimate& to_parent, const OffsetEstimate& parent_to_root) {
  // Round trips add up: both readings' uncertainties stack. The child's reading
  // was taken at a parent-clock time; on the root's clock that is earlier by the
  // parent's offset (offset = local − reference).
  return OffsetEstimate{to_parent.offset_ns + parent_to_root.offset_ns,
                        to_parent.rtt_ns + parent_to_root.rtt_ns,
                        to_parent.at_ns - parent_to_root.offset_ns};
}

}  // namespace mpidle::sync
