#include "profiler/core/handle_table.hpp"

#include <bit>

namespace mpidle::profiler {

HandleTable::HandleTable(std::size_t capacity)
    : m_capacity(std::bit_ceil(capacity < kMaxProbe ? kMaxProbe : capacity)),
      m_slots(new Slot[m_capacity]) {}

HandleTable::Claim HandleTable::claim_probing(std::uint64_t handle) {
  Claim c;
  c.m_slot = nullptr;
  c.m_handle = handle;
  if (reserved(handle)) return c;
  const std::size_t mask = m_capacity - 1;
  // Another thread may take the free slot first: look again, a few times.
  for (int attempt = 0; attempt < 4; ++attempt) {
    Slot* free = nullptr;
    std::size_t i = home(handle);
    for (std::size_t n = 0; n < kMaxProbe; ++n, i = (i + 1) & mask) {
      Slot& s = m_slots[i];
      const std::uint64_t k = s.key.load(std::memory_order_acquire);
      if (k == handle || k == (handle | kDone)) {
        free = &s;  // the handle's old entry: replaced
        break;
      }
      if (reusable(k) && free == nullptr) free = &s;
      if (k == kEmpty) break;
    }
    if (free == nullptr) break;
    std::uint64_t expected = free->key.load(std::memory_order_relaxed);
    if ((reusable(expected) || expected == handle) &&
        free->key.compare_exchange_strong(expected, kBusy, std::memory_order_acquire)) {
      c.m_slot = free;
      return c;
    }
  }
  m_dropped.fetch_add(1, std::memory_order_relaxed);
  return c;
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

std::size_t HandleTable::size() const {
  std::size_t live = 0;
  for (std::size_t i = 0; i < m_capacity; ++i) {
    const std::uint64_t k = m_slots[i].key.load(std::memory_order_acquire);
    live += !reusable(k) && k != kBusy;
  }
  return live;
}

}  // namespace mpidle::profiler
