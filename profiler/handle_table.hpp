#pragma once
// Process-wide map from an MPI handle (request or matched-probe message) to what
// mpidle needs when it completes: the peer's world rank, the bytes, the trace
// links. Shared by every thread, because MPI lets a request started on one thread
// complete on another. Lock-free: a slot is claimed with one compare-and-swap and
// published with a release store; erasing leaves a tombstone that a later insert
// reuses. Probing is bounded, so a full table (or a window full of tombstones)
// forgets the operation and counts it instead of searching the whole table.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

namespace mpidle::profiler {

class CommInfo;

struct PendingOp {
  std::int32_t peer = -1;  // world rank; kPeerFromStatus when it is known only at completion
  bool persistent = false;
  bool receive = false;
  bool send = false;
  bool synchronous = false;        // Issend / Ssend_init: completes only once matched
  bool cancel_requested = false;   // MPI_Cancel was called on it
  std::uint64_t bytes = 0;         // bytes this operation sends (or a collective's bytes)
  std::uint64_t posted_bytes = 0;  // a receive's buffer: used only when the status has none
  const CommInfo* comm = nullptr;  // to translate a status' source (ANY_SOURCE)
  // Trace mode: what the completion record says.
  std::int32_t tag = -1;  // posted tag (MPI_ANY_TAG: from the status)
  std::uint32_t comm_id = 0;
  std::uint32_t serial = 0;  // request serial, or the collective instance
  std::uint8_t collective_kind = 0;
  std::int32_t root = -1;
  std::int32_t comm_shape = 0;  // see call_table.hpp
};

inline constexpr std::int32_t kPeerFromStatus = -2;

class HandleTable {
 public:
  // Probes at most this many slots from a handle's home slot.
  static constexpr std::size_t kMaxProbe = 64;

  explicit HandleTable(std::size_t capacity);

  // Adds or replaces (a handle reused after a completion mpidle did not see).
  // False when no slot is free within the probe window; counted in dropped().
  bool put(std::uint64_t handle, const PendingOp& op);
  std::optional<PendingOp> find(std::uint64_t handle) const;
  // find() and erase() in one probe.
  std::optional<PendingOp> take(std::uint64_t handle);
  // A completed request: take() it, but keep a persistent one (it is forgotten at
  // MPI_Request_free). One probe.
  std::optional<PendingOp> take_completed(std::uint64_t handle);
  void erase(std::uint64_t handle);
  // Marks a pending operation as cancel-requested; false when unknown.
  bool mark_cancelled(std::uint64_t handle);

  std::size_t size() const { return m_size.load(std::memory_order_relaxed); }
  std::uint64_t dropped() const { return m_dropped.load(std::memory_order_relaxed); }
  std::size_t capacity() const { return m_capacity; }
  std::size_t memory_bytes() const { return m_capacity * sizeof(Slot); }

 private:
  // Keys no handle takes (MPI handles are non-zero integers or aligned pointers).
  static constexpr std::uint64_t kEmpty = 0;
  static constexpr std::uint64_t kBusy = ~std::uint64_t{0};
  static constexpr std::uint64_t kTombstone = ~std::uint64_t{1};
  static bool reserved(std::uint64_t h) { return h == kEmpty || h == kBusy || h == kTombstone; }

  struct Slot {
    std::atomic<std::uint64_t> key{kEmpty};
    PendingOp op;
  };
  std::size_t home(std::uint64_t handle) const;
  // The slot holding `handle`, or nullptr.
  Slot* slot_of(std::uint64_t handle) const;

  std::size_t m_capacity;
  std::unique_ptr<Slot[]> m_slots;
  std::atomic<std::size_t> m_size{0};
  std::atomic<std::uint64_t> m_dropped{0};
};

}  // namespace mpidle::profiler
