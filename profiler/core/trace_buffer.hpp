#pragma once
// One thread's trace records: large chunks in memory, no I/O during the run until
// the rank's memory cap is reached; after that each full chunk is written whole to
// a spill file and its memory reused. Nothing is dropped silently. At finalize the
// records leave one chunk at a time, so that the cap holds then too.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/trace_events.hpp"

namespace mpidle::profiler {

class TraceBuffer {
 public:
  // 2 MiB: one transparent huge page, so that filling a chunk takes one page
  // fault instead of 512 (a fault costs microseconds in a virtual machine).
  static constexpr std::size_t kChunkRecords = 32768;
  static constexpr std::size_t kChunkBytes = kChunkRecords * sizeof(model::TraceRecord);

  // `memory_mib`: MiB of chunks kept in memory at most (one chunk at least);
  // `spill_path`: file for the rest.
  TraceBuffer(std::size_t memory_mib, std::string spill_path);
  ~TraceBuffer();
  TraceBuffer(const TraceBuffer&) = delete;
  TraceBuffer& operator=(const TraceBuffer&) = delete;

  void append(const model::TraceRecord& record) { *next() = record; }
  // Room for one more record, to be written in place.
  model::TraceRecord* next() {
    if (m_used == kChunkRecords) next_chunk();
    return &m_current[m_used++];
  }
  // Room in the current chunk, or null once it is used up (then next_or_null
  // decides): what the trace's common path inlines, without a call.
  model::TraceRecord* next_in_chunk() {
    if (__builtin_expect(m_used == kChunkRecords, 0)) return nullptr;
    return &m_current[m_used++];
  }
  // The same, or null where a bounded buffer is full: one comparison while the
  // current chunk has room.
  model::TraceRecord* next_or_null() {
    if (__builtin_expect(m_used == kChunkRecords, 0) && !make_room()) return nullptr;
    return &m_current[m_used++];
  }
  // A fresh chunk once the current one is used up; false where a bounded buffer
  // is full.
  bool make_room() {
    if (bounded() && full()) return false;
    next_chunk();
    return true;
  }

  // The next chunk of records in order (empty at the end), valid until the next
  // call. Chunks in memory are freed once handed out; spilled ones come back
  // through one reused chunk. `error` says what was lost, once, at the end.
  std::span<const model::TraceRecord> drain_next(std::string& error);
  // Profile mode's windows keep what fits in memory and never spill: `spill_path`
  // empty. Full when one more record would need a chunk beyond the cap.
  bool bounded() const { return m_spill_path.empty(); }
  bool full() const { return m_used == kChunkRecords && m_full.size() + 1 >= m_memory_chunks; }
  // Records appended and kept (lost ones not counted), before draining.
  std::uint64_t records() const { return (m_full.size() + m_spilled) * kChunkRecords + m_used; }
  std::uint64_t spilled_chunks() const { return m_spilled; }
  std::uint64_t lost_records() const { return m_lost; }
  std::size_t memory_bytes() const;

 private:
  void next_chunk();
  struct FreeChunk {
    void operator()(model::TraceRecord* p) const;
  };
  using Chunk = std::unique_ptr<model::TraceRecord[], FreeChunk>;
  static Chunk allocate_chunk();

  std::size_t m_memory_chunks;
  std::string m_spill_path;
  int m_spill_fd = -1;
  std::vector<Chunk> m_full;  // in memory, oldest first
  Chunk m_current;
  std::size_t m_used = 0;
  std::uint64_t m_spilled = 0;
  std::uint64_t m_lost = 0;  // records of chunks that could not be spilled
  // Draining: 0 memory chunks, 1 spilled chunks, 2 the current chunk, 3 done.
  int m_drain_stage = 0;
  std::size_t m_drain_index = 0;
  Chunk m_reading;  // the chunk handed out last
};

}  // namespace mpidle::profiler
