#include "comm_table.hpp"

namespace mpidle::profiler {

CommTable::CommTable() : m_slots(new Slot[kCapacity]) {}
CommTable::~CommTable() = default;

CommInfo* CommTable::insert(std::uint64_t handle, std::vector<std::int32_t> world_ranks,
                            std::uint32_t id, int my_rank, std::int32_t shape, int out_degree) {
  std::lock_guard lock(m_write);
  auto info = std::make_unique<CommInfo>(std::move(world_ranks), id, my_rank, shape, out_degree);
  CommInfo* stored = info.get();
  for (std::size_t n = 0, i = slot_of(handle); n < kCapacity; ++n, i = (i + 1) % kCapacity) {
    const std::uint64_t k = m_slots[i].handle.load(std::memory_order_relaxed);
    if (k == handle || k == kEmpty) {
      m_slots[i].info.store(stored, std::memory_order_release);
      m_slots[i].handle.store(handle, std::memory_order_release);
      m_owned.push_back(std::move(info));
      return stored;
    }
  }
  return nullptr;
}

void CommTable::forget(std::uint64_t handle) {
  // Slots are never emptied (lock-free readers rely on probe runs staying intact);
  // the entry is blanked and rebuilt on the next use of the handle.
  std::lock_guard lock(m_write);
  for (std::size_t n = 0, i = slot_of(handle); n < kCapacity; ++n, i = (i + 1) % kCapacity) {
    const std::uint64_t k = m_slots[i].handle.load(std::memory_order_relaxed);
    if (k == handle) {
      m_slots[i].info.store(nullptr, std::memory_order_release);
      return;
    }
    if (k == kEmpty) return;
  }
}

}  // namespace mpidle::profiler
