#include "handle_table.hpp"

#include <bit>

namespace mpidle::profiler {

HandleTable::HandleTable(std::size_t capacity)
    : m_capacity(std::bit_ceil(capacity < kMaxProbe ? kMaxProbe : capacity)),
      m_slots(new Slot[m_capacity]) {}

std::size_t HandleTable::home(std::uint64_t handle) const {
  const std::uint64_t h = handle * 0x9e3779b97f4a7c15ull;
  return static_cast<std::size_t>(h >> 20) & (m_capacity - 1);
}

HandleTable::Slot* HandleTable::slot_of(std::uint64_t handle) const {
  if (reserved(handle)) return nullptr;
  const std::size_t mask = m_capacity - 1;
  std::size_t i = home(handle);
  for (std::size_t n = 0; n < kMaxProbe; ++n, i = (i + 1) & mask) {
    const std::uint64_t k = m_slots[i].key.load(std::memory_order_acquire);
    if (k == handle) return &m_slots[i];
    if (k == kEmpty) return nullptr;
  }
  return nullptr;
}

bool HandleTable::put(std::uint64_t handle, const PendingOp& op) {
  if (reserved(handle)) return false;
  const std::size_t mask = m_capacity - 1;
  // Another thread may take the free slot first: look again, a few times.
  for (int attempt = 0; attempt < 4; ++attempt) {
    Slot* free = nullptr;
    std::size_t i = home(handle);
    for (std::size_t n = 0; n < kMaxProbe; ++n, i = (i + 1) & mask) {
      Slot& s = m_slots[i];
      const std::uint64_t k = s.key.load(std::memory_order_acquire);
      if (k == handle) {
        // Only the thread that owns a live request touches it: no race here.
        s.op = op;
        return true;
      }
      if (k == kTombstone && free == nullptr) free = &s;
      if (k == kEmpty) {
        if (free == nullptr) free = &s;
        break;
      }
    }
    if (free == nullptr) break;
    std::uint64_t expected = free->key.load(std::memory_order_relaxed);
    if ((expected == kEmpty || expected == kTombstone) &&
        free->key.compare_exchange_strong(expected, kBusy, std::memory_order_acquire)) {
      free->op = op;
      free->key.store(handle, std::memory_order_release);
      m_size.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
  }
  m_dropped.fetch_add(1, std::memory_order_relaxed);
  return false;
}

std::optional<PendingOp> HandleTable::find(std::uint64_t handle) const {
  const Slot* s = slot_of(handle);
  if (s == nullptr) return std::nullopt;
  return s->op;
}

std::optional<PendingOp> HandleTable::take(std::uint64_t handle) {
  Slot* s = slot_of(handle);
  if (s == nullptr) return std::nullopt;
  PendingOp op = s->op;
  s->key.store(kTombstone, std::memory_order_release);
  m_size.fetch_sub(1, std::memory_order_relaxed);
  return op;
}

std::optional<PendingOp> HandleTable::take_completed(std::uint64_t handle) {
  Slot* s = slot_of(handle);
  if (s == nullptr) return std::nullopt;
  PendingOp op = s->op;
  if (!op.persistent) {
    s->key.store(kTombstone, std::memory_order_release);
    m_size.fetch_sub(1, std::memory_order_relaxed);
  }
  return op;
}

void HandleTable::erase(std::uint64_t handle) {
  (void)take(handle);
}

bool HandleTable::mark_cancelled(std::uint64_t handle) {
  Slot* s = slot_of(handle);
  if (s == nullptr) return false;
  s->op.cancel_requested = true;
  return true;
}

}  // namespace mpidle::profiler
