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
  std::uint64_t bytes = 0;         // bytes this operation sends (or a collective's bytes)
  std::uint64_t posted_bytes = 0;  // a receive's buffer: used only when the status has none
  const CommInfo* comm = nullptr;  // to translate a status' source (ANY_SOURCE)
  std::int32_t peer = -1;  // world rank; kPeerFromStatus when it is known only at completion
  // Trace mode: what the completion record says.
  std::int32_t tag = -1;  // posted tag (MPI_ANY_TAG: from the status)
  std::uint32_t comm_id = 0;
  std::uint32_t serial = 0;  // request serial, or the collective instance
  std::int32_t root = -1;
  std::uint8_t collective_kind = 0;
  bool persistent = false;
  bool receive = false;
  bool send = false;
  bool synchronous = false;       // Issend / Ssend_init: completes only once matched
  bool cancel_requested = false;  // MPI_Cancel was called on it
};

inline constexpr std::int32_t kPeerFromStatus = -2;

class HandleTable {
  struct Slot;

 public:
  // Probes at most this many slots from a handle's home slot.
  static constexpr std::size_t kMaxProbe = 64;

  explicit HandleTable(std::size_t capacity);

  // An entry claimed for writing: fill op(), then publish(). Claiming marks the slot
  // busy, so that no other thread reads a half-written operation.
  class Claim {
   public:
    explicit operator bool() const { return m_slot != nullptr; }
    PendingOp& op() const { return m_slot->op; }
    void publish() const { m_slot->key.store(m_handle, std::memory_order_release); }

   private:
    friend class HandleTable;
    Slot* m_slot = nullptr;
    std::uint64_t m_handle = 0;
  };
  // A new entry, or the handle's old one (a handle reused after a completion mpidle
  // did not see). Empty when no slot is free within the probe window; counted in
  // dropped(). A reused handle (polling loops start the same requests again and
  // again) finds its own old entry at its home slot: claimed inline.
  Claim claim(std::uint64_t handle) {
    Slot& s = m_slots[home(handle)];
    std::uint64_t k = s.key.load(std::memory_order_relaxed);
    if ((k == kEmpty || k == (handle | kDone) || k == handle) && !reserved(handle) &&
        s.key.compare_exchange_strong(k, kBusy, std::memory_order_acquire)) {
      Claim c;
      c.m_slot = &s;
      c.m_handle = handle;
      return c;
    }
    return claim_probing(handle);
  }
  // Adds or replaces.
  bool put(std::uint64_t handle, const PendingOp& op) {
    const Claim c = claim(handle);
    if (!c) return false;
    c.op() = op;
    c.publish();
    return true;
  }

  // A live entry, read in place: one probe per completed request. Trivial, so that
  // an array of them costs nothing; Entry{} is empty.
  class Entry {
   public:
    Entry() = default;
    explicit operator bool() const { return m_slot != nullptr; }
    const PendingOp& op() const { return m_slot->op; }

   private:
    friend class HandleTable;
    Slot* m_slot;
    std::uint64_t m_handle;
  };
  Entry locate(std::uint64_t handle) const {
    Entry e{};
    e.m_slot = slot_of(handle);
    e.m_handle = handle;
    return e;
  }
  // A completed request's entry: forgotten unless persistent (forgotten at
  // MPI_Request_free), and only once: several completed requests may share a handle
  // (MPICH hands every send that completed at once the same one). True when this
  // call forgot it. The slot keeps the handle, marked done: the same handle, started
  // again, claims it at once; any other handle may take it.
  bool complete(const Entry& e) {
    if (!e || e.m_slot->op.persistent) return false;
    std::uint64_t expected = e.m_handle;
    return e.m_slot->key.compare_exchange_strong(
        expected, e.m_handle | kDone, std::memory_order_release, std::memory_order_relaxed);
  }

  std::optional<PendingOp> find(std::uint64_t handle) const;
  // find() and erase() in one probe.
  std::optional<PendingOp> take(std::uint64_t handle);
  void erase(std::uint64_t handle);
  // Marks a pending operation as cancel-requested; false when unknown.
  bool mark_cancelled(std::uint64_t handle);

  // Live entries, counted by a scan (tests and finalize, never the hot path).
  std::size_t size() const;
  std::uint64_t dropped() const { return m_dropped.load(std::memory_order_relaxed); }
  std::size_t capacity() const { return m_capacity; }
  std::size_t memory_bytes() const { return m_capacity * sizeof(Slot); }

 private:
  // Keys no handle takes: MPI handles are non-zero integers of at most 32 bits or
  // user-space pointers, whose top bit is clear. A completed handle's slot holds
  // the handle with kDone set.
  static constexpr std::uint64_t kEmpty = 0;
  static constexpr std::uint64_t kDone = std::uint64_t{1} << 63;
  static constexpr std::uint64_t kBusy = ~std::uint64_t{0};
  static constexpr std::uint64_t kTombstone = ~std::uint64_t{1};
  static bool reserved(std::uint64_t h) { return h == kEmpty || (h & kDone) != 0; }
  // A slot that another handle may take.
  static bool reusable(std::uint64_t k) {
    return k == kEmpty || k == kTombstone || ((k & kDone) != 0 && k != kBusy);
  }
  Claim claim_probing(std::uint64_t handle);

  struct Slot {
    std::atomic<std::uint64_t> key{kEmpty};
    PendingOp op;
  };
  std::size_t home(std::uint64_t handle) const {
    const std::uint64_t h = handle * 0x9e3779b97f4a7c15ull;
    return static_cast<std::size_t>(h >> 20) & (m_capacity - 1);
  }
  // The slot holding `handle`, or nullptr.
  Slot* slot_of(std::uint64_t handle) const {
    const std::size_t mask = m_capacity - 1;
    std::size_t i = home(handle);
    for (std::size_t n = 0; n < kMaxProbe; ++n, i = (i + 1) & mask) {
      const std::uint64_t k = m_slots[i].key.load(std::memory_order_acquire);
      if (k == handle) return reserved(handle) ? nullptr : &m_slots[i];
      // The handle's only slot, done; or the end of its probe chain.
      if (k == (handle | kDone) || k == kEmpty) return nullptr;
    }
    return nullptr;
  }

  std::size_t m_capacity;
  std::unique_ptr<Slot[]> m_slots;
  std::atomic<std::uint64_t> m_dropped{0};
};

}  // namespace mpidle::profiler
