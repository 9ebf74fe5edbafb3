#pragma once
// Open-addressing map from an adjacent pair of symbols to its pair record: the
// lookup on every step of compression, so no node allocation per entry.

#include <cstdint>
#include <vector>

namespace mpidle::compress {

class PairMap {
 public:
  static std::uint64_t key(std::uint32_t left, std::uint32_t right) {
    return (static_cast<std::uint64_t>(left) << 32) | right;
  }

  PairMap() { reset(0); }

  // Empties the map, sized for about `expected` entries.
  void reset(std::size_t expected) {
    std::size_t capacity = 16;
    while (capacity < expected * 2) capacity <<= 1;
    if (capacity != m_keys.size()) {
      m_keys.assign(capacity, kEmpty);
      m_values.assign(capacity, 0);
    } else {
      std::fill(m_keys.begin(), m_keys.end(), kEmpty);
    }
    m_mask = capacity - 1;
    m_size = 0;
  }

  // The value stored for `k`; stores `value` first when `k` is new.
  std::uint32_t find_or_insert(std::uint64_t k, std::uint32_t value) {
    if ((m_size + 1) * 2 > m_keys.size()) grow();
    std::size_t i = slot(k);
    while (m_keys[i] != kEmpty) {
      if (m_keys[i] == k) return m_values[i];
      i = (i + 1) & m_mask;
    }
    m_keys[i] = k;
    m_values[i] = value;
    ++m_size;
    return value;
  }

  // The value stored for `k`, or `missing`.
  std::uint32_t find(std::uint64_t k, std::uint32_t missing) const {
    std::size_t i = slot(k);
    while (m_keys[i] != kEmpty) {
      if (m_keys[i] == k) return m_values[i];
      i = (i + 1) & m_mask;
    }
    return missing;
  }

  std::size_t memory_bytes() const {
    return m_keys.capacity() * sizeof(std::uint64_t) + m_values.capacity() * sizeof(std::uint32_t);
  }

 private:
  // Both halves are symbols below 2^32 − 1, so no real key is all ones.
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  std::size_t slot(std::uint64_t k) const {
    return static_cast<std::size_t>((k * 0x9e3779b97f4a7c15ull) >> 32) & m_mask;
  }

  void grow() {
    std::vector<std::uint64_t> keys(m_keys.size() * 2, kEmpty);
    std::vector<std::uint32_t> values(m_keys.size() * 2, 0);
    keys.swap(m_keys);
    values.swap(m_values);
    m_mask = m_keys.size() - 1;
    m_size = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] != kEmpty) find_or_insert(keys[i], values[i]);
    }
  }

  std::vector<std::uint64_t> m_keys;
  std::vector<std::uint32_t> m_values;
  std::size_t m_mask = 0;
  std::size_t m_size = 0;
};

}  // namespace mpidle::compress
