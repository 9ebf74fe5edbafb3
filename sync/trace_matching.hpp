#pragma once
// Which records of a merged trace belong together across ranks: point-to-point
// messages (MPI's non-overtaking order per (communicator, source, destination,
// tag), receives in posting order) and collective instances (communicator id,
// sequence number). Clock synchronization turns these into happened-before
// edges; wait-state analysis measures who waited for whom.

#include <cstdint>
#include <vector>

#include "model/trace_file.hpp"

namespace mpidle::sync {

// A record: the rank's position in trace.ranks, and the record's index there.
struct RecordRef {
  std::uint32_t rank = 0;
  std::uint32_t record = 0;
};

struct MessageMatch {
  RecordRef send;     // the sending call's record: the message leaves at its enter
  RecordRef receive;  // the record whose exit completes the receive (recv or completion)
  RecordRef posted;   // where the receive was posted (the recv itself, or the irecv)
};

struct CollectiveMember {
  std::int32_t rank = -1;  // world rank
  std::int32_t order = 0;  // scan: rank in the communicator; else the world rank
  RecordRef enter{};
  RecordRef exit{};
  bool has_enter = false, has_exit = false;
};

struct CollectiveMatch {
  model::CollectiveKind kind = model::CollectiveKind::none;
  std::int32_t root = model::kTraceNoRoot;  // world rank
  std::vector<CollectiveMember> members;    // by order
  bool complete() const;  // every member has enter and exit, and there are two at least
};

struct TraceMatching {
  std::vector<MessageMatch> messages;
  std::vector<CollectiveMatch> collectives;
};

TraceMatching match_trace(const model::Trace& trace);

}  // namespace mpidle::sync
