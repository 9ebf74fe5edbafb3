#pragma once
// Small per-thread map from an MPI handle (request or message) to what mpidle needs
// when it completes: the peer's world rank and the bytes. Open addressing with
// backward-shift deletion, fixed capacity; a full table just forgets.

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
  std::uint64_t bytes = 0;
  const CommInfo* comm = nullptr;  // to translate a status' source (ANY_SOURCE)
  // Trace mode: what the completion record says.
  std::int32_t tag = -1;  // posted tag (MPI_ANY_TAG: from the status)
  std::uint32_t comm_id = 0;
  std::uint32_t serial = 0;  // request serial, or the collective instance
  std::uint8_t collective_kind = 0;
  std::int32_t root = -1;
};

inline constexpr std::int32_t kPeerFromStatus = -2;

class HandleTable {
 public:
  explicit HandleTable(std::size_t capacity);

  // False when full (the operation is then completed as "unknown peer").
  bool put(std::uint64_t handle, const PendingOp& op);
  std::optional<PendingOp> find(std::uint64_t handle) const;
  void erase(std::uint64_t handle);
  std::size_t size() const { return m_size; }
  std::size_t memory_bytes() const { return m_capacity * sizeof(Slot); }

 private:
  struct Slot {
    std::uint64_t handle = 0;
    PendingOp op;
    bool used = false;
  };
  std::size_t index_of(std::uint64_t handle) const;

  std::size_t m_capacity;
  std::size_t m_size = 0;
  std::unique_ptr<Slot[]> m_slots;
};

}  // namespace mpidle::profiler
