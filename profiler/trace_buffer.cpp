#include "trace_buffer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace mpidle::profiler {
namespace {
constexpr std::size_t kChunkBytes = TraceBuffer::kChunkRecords * sizeof(model::TraceRecord);

bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}
}  // namespace

TraceBuffer::TraceBuffer(std::size_t memory_chunks, std::string spill_path)
    : m_memory_chunks(memory_chunks < 1 ? 1 : memory_chunks),
      m_spill_path(std::move(spill_path)),
      m_current(new model::TraceRecord[kChunkRecords]) {}

TraceBuffer::~TraceBuffer() {
  if (m_spill_fd >= 0) {
    ::close(m_spill_fd);
    ::unlink(m_spill_path.c_str());
  }
}

void TraceBuffer::next_chunk() {
  if (m_full.size() + 1 < m_memory_chunks) {
    m_full.push_back(std::move(m_current));
    m_current.reset(new model::TraceRecord[kChunkRecords]);
  } else {
    // Over the cap: the full chunk goes to disk whole and its memory is reused.
    if (m_spill_fd < 0) {
      m_spill_fd = ::open(m_spill_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    }
    if (m_spill_fd >= 0 && write_all(m_spill_fd, m_current.get(), kChunkBytes)) {
      ++m_spilled;
    } else {
      m_lost += kChunkRecords;
    }
  }
  m_used = 0;
}

std::vector<model::TraceRecord> TraceBuffer::drain(std::string& error) {
  std::vector<model::TraceRecord> out;
  out.reserve((m_full.size() + m_spilled) * kChunkRecords + m_used);
  for (const auto& chunk : m_full) out.insert(out.end(), chunk.get(), chunk.get() + kChunkRecords);
  if (m_spilled > 0) {
    std::vector<model::TraceRecord> chunk(kChunkRecords);
    ::lseek(m_spill_fd, 0, SEEK_SET);
    for (std::uint64_t c = 0; c < m_spilled; ++c) {
      if (::read(m_spill_fd, chunk.data(), kChunkBytes) != static_cast<ssize_t>(kChunkBytes)) {
        error = "could not read back spilled trace chunks from " + m_spill_path;
        break;
      }
      out.insert(out.end(), chunk.begin(), chunk.end());
    }
  }
  if (m_lost > 0 && error.empty()) {
    error = std::to_string(m_lost) + " trace records lost: cannot write " + m_spill_path;
  }
  out.insert(out.end(), m_current.get(), m_current.get() + m_used);
  return out;
}

std::size_t TraceBuffer::memory_bytes() const {
  return (m_full.size() + 1) * kChunkBytes;
}

}  // namespace mpidle::profiler
