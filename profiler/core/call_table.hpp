#pragma once
// Per-thread table of (callsite, function, size class, peer, communicator shape) →
// visits, minimum, and a histogram of durations (count and sum per power of two).
// Fixed capacity, open addressing with linear probing, allocated once per thread:
// an update is a hash, a probe or two and a few stores, with no allocation or lock.
// The slots are zero pages until a key first lands there, so the table's resident
// memory follows the keys used, not its capacity.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "profiler/core/clock.hpp"

namespace mpidle::profiler {

struct CallKey {
  std::uintptr_t callsite = 0;  // return address, or a stack id (see stack_table.hpp)
  std::uint16_t function = 0;
  std::int16_t size_class = 0;
  std::int32_t peer = 0;
  std::int32_t comm_shape = 0;  // model::kNoCommShape, n ranks, or −(both groups) if inter
  std::uint16_t region = 0;     // the thread's innermost open region (regions.hpp); in padding

  bool operator==(const CallKey&) const = default;
};

// The duration of a visit that did not read the clock (a poll left out of the
// sample, MPIDLE_POLL_SAMPLE): counted, its time estimated at finalize.
inline constexpr Ticks kUntimed = ~Ticks{0};

// Durations by power of two of ticks: bin 0 holds [0, 64) ticks, bin k holds
// [2^(k+5), 2^(k+6)) and the last everything from 2^(kDurationBins+4) on. Each bin
// keeps the sum of its durations, so finalize knows the exact time above any bin edge
// and the exact mean within a bin (the robust baseline, docs/profile-format.md).
inline constexpr unsigned kDurationBins = 28;
inline constexpr unsigned kFirstBinBits = 6;  // bin 0 is [0, 2^6) ticks

[[gnu::always_inline]] inline unsigned duration_bin(Ticks duration) {
  // `| 32` keeps the leading bit at 5 or above, so short calls fall in bin 0.
  const unsigned bit = 63u - static_cast<unsigned>(__builtin_clzll(duration | 32u));
  const unsigned bin = bit - (kFirstBinBits - 1);
  return bin < kDurationBins - 1 ? bin : kDurationBins - 1;
}

struct DurationBin {
  std::uint64_t count = 0;
  Ticks sum = 0;
};

// The duration an untimed poll is given (MPIDLE_POLL_SAMPLE): its key's timed
// visits' mean, leaving out those in bins 16 times the median visit's and more. A
// poll does not wait for a partner: a timed one that long was interrupted (a
// descheduled rank), and the sample would count that interruption as many times
// over as it leaves polls untimed. `total`: of the `timed` visits in `bins`.
inline double typical_poll_duration(const DurationBin* bins, Ticks total, std::uint64_t timed) {
  std::uint64_t seen = 0;
  unsigned median_bin = 0;
  while (median_bin + 1 < kDurationBins && 2 * (seen + bins[median_bin].count) < timed) {
    seen += bins[median_bin++].count;
  }
  std::uint64_t count = 0;
  double sum = 0;
  for (unsigned b = 0; b < kDurationBins && b <= median_bin + 4; ++b) {
    count += bins[b].count;
    sum += static_cast<double>(bins[b].sum);
  }
  if (count > 0) return sum / static_cast<double>(count);
  return timed > 0 ? static_cast<double>(total) / static_cast<double>(timed) : 0.0;
}

struct CallStats {
  std::uint64_t visits = 0;
  Ticks minimum = ~Ticks{0};
  std::uint64_t bytes = 0;
  std::uint64_t untimed = 0;  // visits without a duration
  DurationBin bins[kDurationBins];

  // Of the timed visits.
  Ticks total() const {
    Ticks t = 0;
    for (const DurationBin& b : bins) t += b.sum;
    return t;
  }
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
        s.stats = CallStats{};
        touch(i);
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
    DurationBin& bin = s.bins[duration_bin(duration)];
    ++bin.count;
    bin.sum += duration;
    if (duration < s.minimum) s.minimum = duration;
  }

  // Reads only the pages keys have landed on: a used slot's pages are all touched.
  // Reading the others would make them resident (a kernel that gives read faults
  // of untouched anonymous memory pages of their own adds the whole table to the
  // finalize's memory: 8 MiB at the default size).
  template <typename Visit>
  void for_each(Visit visit) const {
    for (std::size_t i = 0; i < m_capacity; ++i) {
      const std::size_t used_at = i * sizeof(Slot) + offsetof(Slot, used);
      if (!m_page_touched[used_at / kPageBytes]) continue;
      if (m_slots[i].used) visit(m_slots[i].key, m_slots[i].stats);
    }
  }

  std::size_t size() const { return m_size; }
  std::size_t capacity() const { return m_capacity; }
  // Resident memory: the pages that keys have landed on, and the page map.
  std::size_t memory_bytes() const {
    return m_touched_pages * kPageBytes + m_page_touched.size() / 8;
  }

 private:
  struct Slot {
    CallKey key;
    CallStats stats;
    bool used = false;
  };
  struct FreeSlots {
    void operator()(Slot* slots) const;
  };
  static constexpr std::size_t kPageBytes = 4096;

  // Out of line: only when a key is new.
  void touch(std::size_t slot);

  static std::uint64_t hash(const CallKey& k) {
    std::uint64_t h = static_cast<std::uint64_t>(k.callsite) ^
                      (static_cast<std::uint64_t>(k.function) << 48) ^
                      (static_cast<std::uint64_t>(static_cast<std::uint16_t>(k.size_class)) << 32) ^
                      static_cast<std::uint32_t>(k.peer) ^
                      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.comm_shape)) << 20) ^
                      (static_cast<std::uint64_t>(k.region) << 40);
    h ^= h >> 33;  // murmur3 finalizer: spreads nearby addresses over the table
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
  }

  std::size_t m_capacity;
  std::size_t m_limit;
  std::size_t m_size = 0;
  // Zero-filled pages from calloc: a zero slot is an unused one.
  std::unique_ptr<Slot[], FreeSlots> m_slots;
  std::vector<bool> m_page_touched;
  std::size_t m_touched_pages = 0;
};

}  // namespace mpidle::profiler
