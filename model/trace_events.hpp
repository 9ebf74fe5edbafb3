#pragma once
// Trace records: one per MPI call (and one per request a completion call
// completes), fixed-size and trivially copyable so that the profiler can append
// them to preallocated buffers and ship them as bytes.

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace mpidle::model {

// What a record means for matching messages and collectives.
enum class TraceRole : std::uint8_t {
  other = 0,        // no dependency (time only, local calls)
  send = 1,         // blocking send: the send happens at enter
  recv = 2,         // blocking receive: the receive happens at exit
  isend = 3,        // non-blocking send started: the send happens at enter
  irecv = 4,        // non-blocking receive posted; it completes in a completion record
  completion = 5,   // one completed request (a receive's peer, tag, bytes; a send's serial)
  collective = 6,   // a blocking collective instance (comm, sequence number, root)
  icollective = 7,  // a non-blocking collective started; its exit is a completion record
  cancelled = 8,    // a request that completed as cancelled: `sequence` names its isend/irecv
};

// TraceRecord::flags
inline constexpr std::uint8_t kTraceSynchronous = 1;  // a synchronous-mode send (Ssend, Issend)

inline constexpr std::int32_t kTraceNoRoot = -1;

struct TraceRecord {
  std::int64_t enter_ns = 0;
  std::int64_t exit_ns = 0;
  std::uint64_t callsite = 0;  // index into the trace's callsite table
  std::uint64_t bytes = 0;
  std::uint32_t function = 0;  // index into the trace's function table
  std::int32_t peer = -1;      // world rank: destination of a send, source of a receive
  // A message's tag; a collective's record (collective, icollective): its
  // communicator's shape (model::comm_size_of), which keys it in the profile.
  std::int32_t tag = -1;
  std::uint32_t comm = 0;  // communicator id, equal on every member rank
  // Collective instance on `comm` (collective, icollective, and the completion of
  // an icollective), or the request serial linking an isend/irecv to its completion
  // (serials are unique within a rank, whichever thread made them).
  std::uint32_t sequence = 0;
  std::int32_t root = kTraceNoRoot;  // world rank of a rooted collective's root
  TraceRole role = TraceRole::other;
  std::uint8_t collective_kind = 0;  // CollectiveKind of a collective record
  std::uint8_t extra = 0;            // 1: a further record of the same call (not a call of its own)
  std::uint8_t flags = 0;            // kTraceSynchronous
  // The size class of the call's key in the profile (its first record; a Waitall's
  // is that of all the bytes it completed): what calibration keys it by.
  std::int8_t profile_size_class = 0;
};
static_assert(std::is_trivially_copyable_v<TraceRecord>);
static_assert(sizeof(TraceRecord) == 64);

// How a collective's ranks depend on each other (Becker, Rabenseifner, Wolf 2007).
enum class CollectiveKind : std::uint8_t {
  none = 0,
  one_to_n = 1,  // Bcast, Scatter(v): root enter → every exit
  n_to_one = 2,  // Reduce, Gather(v): every enter → root exit
  n_to_n = 3,    // Allreduce, Allgather(v), Alltoall(v/w), Reduce_scatter, Barrier
  scan = 4,      // Scan: exit n after enters 0..n
  exscan = 5,    // Exscan: exit n after enters 0..n−1
};

// Scans carry the caller's rank in the communicator where others carry a root.
constexpr bool is_scan(CollectiveKind k) {
  return k == CollectiveKind::scan || k == CollectiveKind::exscan;
}

}  // namespace mpidle::model
