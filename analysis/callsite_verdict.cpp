#include "analysis/callsite_verdict.hpp"

#include <algorithm>

namespace mpidle::analysis {

const char* dominant_name(Dominant d) {
  switch (d) {
    case Dominant::waiting:
      return "waiting/imbalance";
    case Dominant::waiting_or_transfer:
      return "waiting or transfer (completion calls)";
    case Dominant::latency:
      return "latency (small messages)";
    case Dominant::bandwidth:
      return "bandwidth (large messages)";
    case Dominant::propagated:
      return "waiting propagated from communication";
    case Dominant::waiting_for_communication:
      return "waiting for a partner's communication";
    case Dominant::waiting_propagated:
      return "waiting propagated from another callsite";
  }
  return "?";
}

const char* dominant_advice(Dominant d) {
  switch (d) {
    case Dominant::waiting:
      return "balance the load: neither faster links nor faster cores shorten waiting for a late "
             "partner";
    case Dominant::waiting_or_transfer:
      return "a late partner or the transfer the Wait held: faster links shorten the transfer "
             "only; trace both runs (MPIDLE_TRACE=1) to split them";
    case Dominant::latency:
      return "lower network latency would help";
    case Dominant::bandwidth:
      return "more network bandwidth would help";
    case Dominant::propagated:
      return "a partner late because of its own slower communication (the waiting grew with "
             "the MPI processing, not with the load imbalance): faster links shorten it, "
             "balancing the load would not; a trace of both runs shows where it starts";
    case Dominant::waiting_for_communication:
      return "the partner was late because of its own communication time (the root causes): "
             "a faster link, or fewer and larger messages, would shorten it; balancing the load "
             "would not";
    case Dominant::waiting_propagated:
      return "the partner was late because it waited itself (the root causes): what causes "
             "the waiting it propagates decides";
  }
  return "";
}

Dominant dominant_of(const CallsiteCost& c, const WaitGrowth& g) {
  // Never "waiting" for time that may be the transfer a Wait held.
  const Dominant d = c.time > 0 && c.wait - c.wait_or_transfer >= 0.5 * c.time ? Dominant::waiting
                     : c.time > 0 && c.wait >= 0.5 * c.time   ? Dominant::waiting_or_transfer
                     : c.bytes_per_visit > kLatencyBoundBytes ? Dominant::bandwidth
                                                              : Dominant::latency;
  const double grew = g.wait_higher - g.wait_lower;
  const bool propagated = g.in_both && grew > 0 && g.wait_lower < 0.5 * g.wait_higher &&
                          g.imbalance_grew < 0.5 * grew && g.processing_grew >= grew;
  return d == Dominant::waiting && propagated ? Dominant::propagated : d;
}

Dominant dominant_by_causes(Dominant verdict, const WaitCauses& causes) {
  if (verdict != Dominant::waiting && verdict != Dominant::propagated) return verdict;
  const double most = std::max({causes.computation, causes.communication, causes.propagated});
  if (most <= 0) return verdict;
  if (causes.computation == most) return Dominant::waiting;
  if (causes.communication == most) return Dominant::waiting_for_communication;
  return Dominant::waiting_propagated;
}

}  // namespace mpidle::analysis
