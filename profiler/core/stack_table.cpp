#include "profiler/core/stack_table.hpp"

#include <algorithm>
#include <bit>

namespace mpidle::profiler {

StackTable::StackTable(std::size_t capacity)
    : m_capacity(std::bit_ceil(capacity < 4 ? std::size_t{4} : capacity)),
      m_slots(new Slot[m_capacity]) {}

std::uintptr_t StackTable::intern(std::span<void* const> frames) {
  const std::size_t n = std::min(frames.size(), kMaxStackDepth);
  if (n == 0) return 0;
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) {
    h = (h ^ reinterpret_cast<std::uintptr_t>(frames[i])) * 1099511628211ull;
  }
  const std::size_t mask = m_capacity - 1;
  for (std::size_t i = (h ^ (h >> 29)) & mask;; i = (i + 1) & mask) {
    Slot& s = m_slots[i];
    if (s.depth == n && std::equal(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(n),
                                   s.frames.begin(), [](void* a, std::uintptr_t b) {
                                     return reinterpret_cast<std::uintptr_t>(a) == b;
                                   })) {
      return kStackIdTag | i;
    }
    if (s.depth == 0) {
      if (m_size >= m_capacity / 4 * 3) return 0;
      s.depth = static_cast<std::uint8_t>(n);
      for (std::size_t f = 0; f < n; ++f) s.frames[f] = reinterpret_cast<std::uintptr_t>(frames[f]);
      ++m_size;
      return kStackIdTag | i;
    }
  }
}

std::vector<std::uintptr_t> StackTable::frames_of(std::uintptr_t id) const {
  const std::size_t i = id & ~kStackIdTag;
  if (i >= m_capacity) return {};
  const Slot& s = m_slots[i];
  return {s.frames.begin(), s.frames.begin() + s.depth};
}

}  // namespace mpidle::profiler
