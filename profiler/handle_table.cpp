#include "handle_table.hpp"

#include <bit>

namespace mpidle::profiler {

HandleTable::HandleTable(std::size_t capacity)
    : m_capacity(std::bit_ceil(capacity < 4 ? std::size_t{4} : capacity)),
      m_slots(new Slot[m_capacity]) {}

std::size_t HandleTable::index_of(std::uint64_t handle) const {
  std::uint64_t h = handle * 0x9e3779b97f4a7c15ull;
  return static_cast<std::size_t>(h >> 20) & (m_capacity - 1);
}

bool HandleTable::put(std::uint64_t handle, const PendingOp& op) {
  const std::size_t mask = m_capacity - 1;
  for (std::size_t i = index_of(handle);; i = (i + 1) & mask) {
    Slot& s = m_slots[i];
    if (s.used && s.handle == handle) {
      s.op = op;  // a handle the application reused after we missed its completion
      return true;
    }
    if (!s.used) {
      if (m_size + 1 > m_capacity / 4 * 3) return false;
      s = Slot{handle, op, true};
      ++m_size;
      return true;
    }
  }
}

std::optional<PendingOp> HandleTable::find(std::uint64_t handle) const {
  const std::size_t mask = m_capacity - 1;
  for (std::size_t i = index_of(handle);; i = (i + 1) & mask) {
    const Slot& s = m_slots[i];
    if (!s.used) return {};
    if (s.handle == handle) return s.op;
  }
}

void HandleTable::erase(std::uint64_t handle) {
  const std::size_t mask = m_capacity - 1;
  std::size_t i = index_of(handle);
  for (;; i = (i + 1) & mask) {
    if (!m_slots[i].used) return;
    if (m_slots[i].handle == handle) break;
  }
  // Backward-shift: move later members of the probe run into the hole.
  std::size_t hole = i;
  for (std::size_t j = (hole + 1) & mask; m_slots[j].used; j = (j + 1) & mask) {
    const std::size_t home = index_of(m_slots[j].handle);
    const bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      m_slots[hole] = m_slots[j];
      hole = j;
    }
  }
  m_slots[hole] = Slot{};
  --m_size;
}

}  // namespace mpidle::profiler
