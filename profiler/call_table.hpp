#pragma once
// Per-thread table of (callsite, function, size class, peer, communicator shape) →
// visits, time, minimum.
// Fixed capacity, open addressing with linear probing, allocated once per thread:
// an update is a hash, a probe or two and four stores, with no allocation or lock.

#include <cstdint>
#include <memory>

#include "clock.hpp"

namespace mpidle::profiler {

struct CallKey {
  std::uintptr_t callsite = 0;  // return address, or a stack id (see stack_table.hpp)
  std::uint16_t function = 0;
  std::int16_t size_class = 0;
  std::int32_t peer = 0;
  std::int32_t comm_shape = 0;  // model::kNoCommShape, n ranks, or −(both groups) if inter

  bool operator==(const CallKey&) const = default;
};

// The duration of a visit that did not read the clock (a poll left out of the
// sample, MPIDLE_POLL_SAMPLE): counted, its time estimated at finalize.
inline constexpr Ticks kUntimed = ~Ticks{0};

struct CallStats {
  std::uint64_t visits = 0;
  Ticks total = 0;  // of the timed visits
  Ticks minimum = ~Ticks{0};
  std::uint64_t bytes = 0;
  std::uint64_t untimed = 0;  // visits without a duration
};

class CallTable {
 public:
  // `capacity` is rounded up to a power of two; inserts stop at 3/4 full.
  explicit CallTable(std::size_t capacity);

  // Adds one visit; false when the key is new and the table is full.
  bool add(const CallKey& key, Ticks duration, std::uint64_t bytes) {
    CallStats* stats = slot_of(key);
    if (stats != nullptr) add_visit(*stats, duration, bytes);
    return stats != nullptr;
  }

  // The key's statistics, made empty when the key is new; null when the key is new
  // and the table is full. Slots never move: the pointer stays valid.
  CallStats* slot_of(const CallKey& key) {
    const std::size_t mask = m_capacity - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      Slot& s = m_slots[i];
      if (s.used && s.key == key) return &s.stats;
      if (!s.used) {
        if (m_size >= m_limit) return nullptr;
        s.used = true;
        s.key = key;
        ++m_size;
        return &s.stats;
      }
    }
  }

  static void add_visit(CallStats& s, Ticks duration, std::uint64_t bytes) {
    ++s.visits;
    s.bytes += bytes;
    if (duration == kUntimed) {
      ++s.untimed;
      return;
    }
    s.total += duration;
    if (duration < s.minimum) s.minimum = duration;
  }

  template <typename Visit>
  void for_each(Visit visit) const {
    for (std::size_t i = 0; i < m_capacity; ++i) {
      if (m_slots[i].used) visit(m_slots[i].key, m_slots[i].stats);
    }
  }

  std::size_t size() const { return m_size; }
  std::size_t capacity() const { return m_capacity; }
  std::size_t memory_bytes() const { return m_capacity * sizeof(Slot); }

 private:
  struct Slot {
    CallKey key;
    CallStats stats;
    bool used = false;
  };

  static std::uint64_t hash(const CallKey& k) {
    std::uint64_t h = static_cast<std::uint64_t>(k.callsite) ^
                      (static_cast<std::uint64_t>(k.function) << 48) ^
                      (static_cast<std::uint64_t>(static_cast<std::uint16_t>(k.size_class)) << 32) ^
                      static_cast<std::uint32_t>(k.peer) ^
                      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.comm_shape)) << 20);
    h ^= h >> 33;  // murmur3 finalizer: spreads nearby addresses over the table
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
  }

  std::size_t m_capacity;
  std::size_t m_limit;
  std::size_t m_size = 0;
  std::unique_ptr<Slot[]> m_slots;
};

}  // namespace mpidle::profiler
