#pragma once
// mpidle's one binary format, for everything it ships between ranks or writes to
// disk (tables, summaries, wait states, traces): trivially copyable values as their
// bytes, strings as a u32 length and the bytes, arrays as a u64 count and the items.
// Writers and readers are the same code over memory or a stream; a reader never
// reads past its input: every get reports failure instead.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace mpidle::model {

// Where a writer's bytes go.
class MemorySink {
 public:
  void write(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    m_bytes.insert(m_bytes.end(), b, b + n);
  }
  std::vector<std::byte> take() { return std::move(m_bytes); }

 private:
  std::vector<std::byte> m_bytes;
};

class StreamSink {
 public:
  explicit StreamSink(std::ostream& out) : m_out(out) {}
  void write(const void* p, std::size_t n) {
    m_out.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
  }

 private:
  std::ostream& m_out;
};

// Where a reader's bytes come from.
class MemorySource {
 public:
  explicit MemorySource(std::span<const std::byte> bytes) : m_bytes(bytes) {}
  bool read(void* p, std::uint64_t n) {
    if (n > remaining()) return false;
    if (n == 0) return true;  // `p` may be an empty array's null data()
    std::memcpy(p, m_bytes.data() + m_pos, n);
    m_pos += n;
    return true;
  }
  bool skip(std::uint64_t n) {
    if (n > remaining()) return false;
    m_pos += n;
    return true;
  }
  std::uint64_t remaining() const { return m_bytes.size() - m_pos; }
  std::uint64_t position() const { return m_pos; }

 private:
  std::span<const std::byte> m_bytes;
  std::size_t m_pos = 0;
};

class StreamSource {
 public:
  explicit StreamSource(std::istream& in) : m_in(in) {
    m_in.seekg(0, std::ios::end);
    m_size = m_in ? static_cast<std::uint64_t>(m_in.tellg()) : 0;
    m_in.seekg(0);
  }
  bool read(void* p, std::uint64_t n) {
    if (n > remaining()) return false;
    m_in.read(static_cast<char*>(p), static_cast<std::streamsize>(n));
    return static_cast<bool>(m_in);
  }
  bool skip(std::uint64_t n) {
    if (n > remaining()) return false;
    m_in.seekg(static_cast<std::streamoff>(n), std::ios::cur);
    return static_cast<bool>(m_in);
  }
  std::uint64_t remaining() { return m_size - position(); }
  std::uint64_t position() {
    const auto at = m_in.tellg();
    return at < 0 ? m_size : static_cast<std::uint64_t>(at);
  }

 private:
  std::istream& m_in;
  std::uint64_t m_size = 0;
};

template <typename Sink>
class BasicByteWriter {
 public:
  template <typename... Args>
  explicit BasicByteWriter(Args&&... args) : m_sink(std::forward<Args>(args)...) {}

  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    m_sink.write(&value, sizeof(T));
  }
  void put_string(const std::string& s) {
    put<std::uint32_t>(static_cast<std::uint32_t>(s.size()));
    m_sink.write(s.data(), s.size());
  }
  // Its length and its items, as get_array reads them.
  template <typename T>
  void put_array(std::span<const T> items) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(items.size());
    m_sink.write(items.data(), items.size_bytes());
  }
  std::vector<std::byte> take() requires std::is_same_v<Sink, MemorySink> { return m_sink.take(); }

 private:
  Sink m_sink;
};

template <typename Source>
class BasicByteReader {
 public:
  template <typename... Args>
  explicit BasicByteReader(Args&&... args) : m_source(std::forward<Args>(args)...) {}

  template <typename T>
  bool get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    return m_source.read(&value, sizeof(T));
  }
  bool get_string(std::string& s) {
    std::uint32_t n = 0;
    if (!get(n) || n > m_source.remaining()) return false;
    s.resize(n);
    return m_source.read(s.data(), n);
  }
  template <typename T, typename Allocator>
  bool get_array(std::vector<T, Allocator>& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::uint64_t n = 0;
    if (!get(n) || !can_hold(n, sizeof(T))) return false;
    out.resize(n);
    return m_source.read(out.data(), n * sizeof(T));
  }
  template <typename T>
  bool skip_array() {
    std::uint64_t n = 0;
    return get(n) && can_hold(n, sizeof(T)) && m_source.skip(n * sizeof(T));
  }
  // Guards vector sizes read from the input against absurd allocations.
  bool can_hold(std::uint64_t count, std::size_t min_item_bytes) {
    return count <= m_source.remaining() / (min_item_bytes ? min_item_bytes : 1);
  }
  bool at_end() { return m_source.remaining() == 0; }
  std::uint64_t position() { return m_source.position(); }

 private:
  Source m_source;
};

using ByteWriter = BasicByteWriter<MemorySink>;
using ByteReader = BasicByteReader<MemorySource>;
using StreamWriter = BasicByteWriter<StreamSink>;
using StreamReader = BasicByteReader<StreamSource>;

// A vector as its length and its items; the reader refuses lengths the input cannot hold.
template <typename Reader, typename T, typename GetItem>
bool get_vector(Reader& r, std::vector<T>& out, std::size_t min_item_bytes, GetItem get_item) {
  std::uint64_t n = 0;
  if (!r.get(n) || !r.can_hold(n, min_item_bytes)) return false;
  out.resize(n);
  for (auto& item : out) {
    if (!get_item(r, item)) return false;
  }
  return true;
}

template <typename Writer, typename T, typename PutItem>
void put_vector(Writer& w, const std::vector<T>& items, PutItem put_item) {
  w.template put<std::uint64_t>(items.size());
  for (const auto& item : items) put_item(w, item);
}

}  // namespace mpidle::model
