#include "profiler/core/comm_table.hpp"

#include <algorithm>

namespace mpidle::profiler {

CommTable::CommTable() : m_slots(new Slot[kCapacity]) {}

CommTable::~CommTable() {
  for (std::size_t i = 0; i < kCapacity; ++i) delete m_slots[i].info.load();
  for (CommInfo* info : m_retired) delete info;
}

CommInfo* CommTable::insert(std::uint64_t handle, std::vector<std::int32_t> world_ranks,
                            std::uint32_t id, int my_rank, std::int32_t shape, int out_degree) {
  std::lock_guard lock(m_write);
  // Slots are never emptied (lock-free readers stop at the first empty slot of a
  // probe run); a forgotten slot is handed to the next handle that needs one.
  Slot* reuse = nullptr;
  for (std::size_t n = 0, i = slot_of(handle); n < kCapacity; ++n, i = (i + 1) % kCapacity) {
    Slot& s = m_slots[i];
    const std::uint64_t k = s.handle.load(std::memory_order_relaxed);
    if (k == handle) {
      // Two threads may build the same entry at once; the first one stays, since
      // the other thread may be reading it already.
      if (CommInfo* live = s.info.load(std::memory_order_relaxed)) return live;
      reuse = &s;
      break;
    }
    if (k == kEmpty) {
      if (reuse == nullptr) reuse = &s;
      break;
    }
    if (reuse == nullptr && s.info.load(std::memory_order_relaxed) == nullptr) reuse = &s;
  }
  if (reuse == nullptr) return nullptr;
  auto* info = new CommInfo(std::move(world_ranks), id, my_rank, shape, out_degree);
  if (reuse->handle.load(std::memory_order_relaxed) != handle) {
    // Readers of the slot's old handle must not see the new entry under it.
    reuse->handle.store(kMoving, std::memory_order_release);
  }
  reuse->info.store(info, std::memory_order_release);
  reuse->handle.store(handle, std::memory_order_release);
  return info;
}

void CommTable::forget(std::uint64_t handle) {
  std::lock_guard lock(m_write);
  for (std::size_t n = 0, i = slot_of(handle); n < kCapacity; ++n, i = (i + 1) % kCapacity) {
    const std::uint64_t k = m_slots[i].handle.load(std::memory_order_relaxed);
    if (k == handle) {
      retire(m_slots[i].info.exchange(nullptr, std::memory_order_acq_rel));
      return;
    }
    if (k == kEmpty) break;
  }
  retire(nullptr);
}

void CommTable::retire(CommInfo* info) {
  if (info != nullptr) m_retired.push_back(info);
  // Nothing reads a freed communicator's entry but a wildcard receive that holds
  // it (using a freed communicator is erroneous in MPI).
  const auto unheld = std::stable_partition(m_retired.begin(), m_retired.end(),
                                            [](const CommInfo* c) { return c->held(); });
  for (auto it = unheld; it != m_retired.end(); ++it) delete *it;
  m_retired.erase(unheld, m_retired.end());
}

std::size_t CommTable::retired() const {
  std::lock_guard lock(m_write);
  return m_retired.size();
}

}  // namespace mpidle::profiler
