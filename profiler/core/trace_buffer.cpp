#include "profiler/core/trace_buffer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace mpidle::profiler {
namespace {
constexpr std::size_t kChunkBytes = TraceBuffer::kChunkBytes;

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

void TraceBuffer::FreeChunk::operator()(model::TraceRecord* p) const {
  std::free(p);
}

TraceBuffer::Chunk TraceBuffer::allocate_chunk() {
  // Aligned to its size so that the kernel can back it with one huge page; the
  // records are written before they are read, so they are left uninitialized.
  void* p = std::aligned_alloc(kChunkBytes, kChunkBytes);
  if (p != nullptr) ::madvise(p, kChunkBytes, MADV_HUGEPAGE);  // a hint only
  return Chunk(static_cast<model::TraceRecord*>(p));           // empty when out of memory
}

TraceBuffer::TraceBuffer(std::size_t memory_mib, std::string spill_path)
    : m_memory_chunks(std::max<std::size_t>(1, memory_mib * (std::size_t{1} << 20) / kChunkBytes)),
      m_spill_path(std::move(spill_path)),
      m_current(allocate_chunk()) {
  if (!m_current) throw std::bad_alloc();  // at thread set-up, where it is caught
  m_full.reserve(m_memory_chunks);         // no allocation for the list in the hot path
}

TraceBuffer::~TraceBuffer() {
  if (m_spill_fd >= 0) ::close(m_spill_fd);
}

void TraceBuffer::next_chunk() {
  // Runs inside the application's MPI call: nothing may throw. Without memory for
  // a new chunk the full one spills, as over the cap.
  Chunk fresh;
  if (m_full.size() + 1 < m_memory_chunks) fresh = allocate_chunk();
  if (fresh && m_full.size() < m_full.capacity()) {
    m_full.push_back(std::move(m_current));
    m_current = std::move(fresh);
  } else {
    // Over the cap: the full chunk goes to disk whole and its memory is reused.
    if (m_spill_fd < 0) {
      m_spill_fd = ::open(m_spill_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      // Read back through this descriptor only: without a name, the file goes
      // with the process however it ends (MPI_Abort, a signal), never left behind.
      if (m_spill_fd >= 0) ::unlink(m_spill_path.c_str());
    }
    if (m_spill_fd >= 0 && write_all(m_spill_fd, m_current.get(), kChunkBytes)) {
      ++m_spilled;
    } else {
      m_lost += kChunkRecords;
    }
  }
  m_used = 0;
}

std::span<const model::TraceRecord> TraceBuffer::drain_next(std::string& error) {
  if (m_drain_stage == 0) {
    if (m_drain_index < m_full.size()) {
      m_reading = std::move(m_full[m_drain_index++]);  // the previous one is freed
      return {m_reading.get(), kChunkRecords};
    }
    m_full.clear();
    m_drain_stage = 1;
    m_drain_index = 0;
  }
  if (m_drain_stage == 1) {
    if (m_drain_index < m_spilled) {
      if (!m_reading) m_reading = allocate_chunk();  // out of memory: the rest is lost
      const bool positioned = m_drain_index > 0 || ::lseek(m_spill_fd, 0, SEEK_SET) == 0;
      if (m_reading && positioned &&
          ::read(m_spill_fd, m_reading.get(), kChunkBytes) == static_cast<ssize_t>(kChunkBytes)) {
        // Read back: its pages leave the page cache now, unwritten if they were still
        // dirty, rather than compete with the finalize's arrays (a hint: errors ignored).
        ::fallocate(m_spill_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                    static_cast<off_t>(m_drain_index * kChunkBytes), kChunkBytes);
        ++m_drain_index;
        return {m_reading.get(), kChunkRecords};
      }
    }
    if (m_drain_index < m_spilled) {
      error = "could not read back " + std::to_string(m_spilled - m_drain_index) +
              " spilled trace chunks from " + m_spill_path;
      m_lost += (m_spilled - m_drain_index) * kChunkRecords;
      m_drain_index = m_spilled;
    }
    m_reading.reset();
    if (m_spill_fd >= 0) {
      ::close(m_spill_fd);  // unlinked: the file goes now, not when the thread's state does
      m_spill_fd = -1;
    }
    m_drain_stage = 2;
    if (m_used > 0) return {m_current.get(), m_used};
  }
  if (m_drain_stage == 2) {
    m_drain_stage = 3;
    if (m_lost > 0 && error.empty()) {
      error = std::to_string(m_lost) + " trace records lost: cannot write " + m_spill_path;
    }
  }
  return {};
}

std::size_t TraceBuffer::memory_bytes() const {
  return (m_full.size() + 1) * kChunkBytes;
}

}  // namespace mpidle::profiler
