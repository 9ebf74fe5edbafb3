#pragma once
// Which records of a merged trace belong together across ranks: point-to-point
// messages (MPI's non-overtaking order per (communicator, source, destination,
// tag), receives in posting order) and collective instances (communicator id,
// sequence number). Clock synchronization turns these into happened-before
// edges; wait-state analysis measures who waited for whom.

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "model/trace_file.hpp"

namespace mpidle::sync {

// A record: the rank's position in trace.ranks, and the record's index there.
// One word, so that matches of 10^8 messages stay compact: 2^24 ranks and 2^40
// records per rank (64 TiB of records); match_trace refuses larger traces.
struct RecordRef {
  static constexpr std::uint64_t kMaxRanks = std::uint64_t{1} << 24;
  static constexpr std::uint64_t kMaxRecords = std::uint64_t{1} << 40;
  std::uint64_t rank : 24 = 0;
  std::uint64_t record : 40 = 0;
};
static_assert(sizeof(RecordRef) == 8);

struct MessageMatch {
  RecordRef send;     // the sending call's record: the message leaves at its enter
  RecordRef receive;  // the record whose exit completes the receive (recv or completion)
  RecordRef posted;   // where the receive was posted (the recv itself, or the irecv)
  // The call that completed the receive (its first record): one Waitall that
  // completes several receives is one call, and waits once.
  RecordRef receive_call;
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
  // What found no partner. Non-zero means the trace lost or garbled records (or a
  // message was still in flight at MPI_Finalize): every later pair of the same
  // channel may then be wrong, so reports must say so loudly.
  std::uint64_t unmatched_sends = 0;
  std::uint64_t unmatched_receives = 0;  // including receives whose sender is unknown
  std::uint64_t cancelled = 0;           // sends and receives cancelled (not messages)
};

// Throws model::TraceError for a trace beyond RecordRef's limits.
TraceMatching match_trace(const model::Trace& trace);

// What one rank's records contribute to matching, found from that rank alone: the
// sequential matcher pairs these over all ranks, the parallel replay pairs them
// by replay messages (each side knows a message's position on its channel).

// (communicator, source, destination, tag): MPI's non-overtaking order holds per key.
using ChannelKey = std::tuple<std::uint32_t, std::int32_t, std::int32_t, std::int32_t>;

struct ReceiveItem {
  RecordRef posted;    // the receive's posting record: its order on the rank
  RecordRef complete;  // the record whose exit completes it
  RecordRef call;      // the first record of the call that completed it
};

// One rank's part of one collective instance.
struct CollectiveItem {
  std::uint32_t comm = 0;
  std::uint64_t instance = 0;  // the instance number, unwrapped to 64 bits
  model::CollectiveKind kind = model::CollectiveKind::none;
  std::int32_t root = model::kTraceNoRoot;
  CollectiveMember member;
};

struct RankMatchItems {
  // Sends in call order (cancelled ones removed): the k-th send of a channel
  // matches the k-th receive of the same channel.
  std::map<ChannelKey, model::LargeArray<RecordRef>> sends;
  // Receives in posting order.
  std::map<ChannelKey, model::LargeArray<ReceiveItem>> receives;
  model::LargeArray<CollectiveItem> collectives;
  std::uint64_t unknown_source_receives = 0;
  std::uint64_t cancelled = 0;
};

// `position`: the rank's index in trace.ranks (what RecordRefs name).
RankMatchItems scan_rank(const model::RankTrace& rank, std::uint32_t position);

}  // namespace mpidle::sync
