#pragma once
// Little binary writer/reader used to ship tables between ranks.
// The reader never reads past its input: every get reports failure instead.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace mpidle::model {

class ByteWriter {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    m_bytes.insert(m_bytes.end(), p, p + sizeof(T));
  }
  void put_string(const std::string& s) {
    put<std::uint32_t>(static_cast<std::uint32_t>(s.size()));
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    m_bytes.insert(m_bytes.end(), p, p + s.size());
  }
  std::vector<std::byte> take() { return std::move(m_bytes); }

 private:
  std::vector<std::byte> m_bytes;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> bytes) : m_bytes(bytes) {}

  template <typename T>
  bool get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (m_bytes.size() - m_pos < sizeof(T)) return false;
    std::memcpy(&value, m_bytes.data() + m_pos, sizeof(T));
    m_pos += sizeof(T);
    return true;
  }
  bool get_string(std::string& s) {
    std::uint32_t n = 0;
    if (!get(n) || m_bytes.size() - m_pos < n) return false;
    s.assign(reinterpret_cast<const char*>(m_bytes.data() + m_pos), n);
    m_pos += n;
    return true;
  }
  // Guards vector sizes read from the input against absurd allocations.
  bool can_hold(std::uint64_t count, std::size_t min_item_bytes) const {
    return count <= (m_bytes.size() - m_pos) / (min_item_bytes ? min_item_bytes : 1);
  }
  bool at_end() const { return m_pos == m_bytes.size(); }

 private:
  std::span<const std::byte> m_bytes;
  std::size_t m_pos = 0;
};

// A vector as its length and its items; the reader refuses lengths the input cannot hold.
template <typename T, typename GetItem>
bool get_vector(ByteReader& r, std::vector<T>& out, std::size_t min_item_bytes, GetItem get_item) {
  std::uint64_t n = 0;
  if (!r.get(n) || !r.can_hold(n, min_item_bytes)) return false;
  out.resize(n);
  for (auto& item : out) {
    if (!get_item(r, item)) return false;
  }
  return true;
}

template <typename T, typename PutItem>
void put_vector(ByteWriter& w, const std::vector<T>& items, PutItem put_item) {
  w.put<std::uint64_t>(items.size());
  for (const auto& item : items) put_item(w, item);
}

}  // namespace mpidle::model
