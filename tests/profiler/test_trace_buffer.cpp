// The trace buffer keeps records in order through its memory cap and spill file,
// and hands them back one chunk at a time at finalize.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "profiler/core/trace_buffer.hpp"

using mpidle::model::TraceRecord;
using mpidle::profiler::TraceBuffer;

namespace {
std::string spill_path(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("mpidle-test-buffer-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

void append_numbered(TraceBuffer& buffer, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    TraceRecord r;
    r.bytes = i;
    buffer.append(r);
  }
}

// Every record drained, in order; the largest chunk seen.
std::vector<std::uint64_t> drain_all(TraceBuffer& buffer, std::string& error,
                                     std::size_t& largest_chunk) {
  std::vector<std::uint64_t> seen;
  largest_chunk = 0;
  for (auto chunk = buffer.drain_next(error); !chunk.empty(); chunk = buffer.drain_next(error)) {
    largest_chunk = std::max(largest_chunk, chunk.size());
    for (const auto& r : chunk) seen.push_back(r.bytes);
  }
  return seen;
}
}  // namespace

TEST_CASE("trace buffer: records come back in order from memory and the spill file") {
  const std::string path = spill_path("spill-order");
  const std::uint64_t n = 5 * TraceBuffer::kChunkRecords + 123;
  TraceBuffer buffer(4, path);  // MiB: two chunks
  append_numbered(buffer, n);
  CHECK(buffer.records() == n);
  CHECK(buffer.spilled_chunks() == 4);
  std::string error;
  std::size_t largest = 0;
  const auto seen = drain_all(buffer, error, largest);
  CHECK(error.empty());
  CHECK(largest == TraceBuffer::kChunkRecords);
  REQUIRE(seen.size() == n);
  for (std::uint64_t i = 0; i < n; ++i) REQUIRE(seen[i] == i);
  CHECK(buffer.lost_records() == 0);
  CHECK(buffer.drain_next(error).empty());  // stays at the end
}

TEST_CASE("trace buffer: a full last chunk and an empty buffer drain correctly") {
  std::string error;
  std::size_t largest = 0;
  TraceBuffer empty(4, spill_path("spill-empty"));
  CHECK(drain_all(empty, error, largest).empty());
  TraceBuffer exact(4, spill_path("spill-exact"));
  append_numbered(exact, 2 * TraceBuffer::kChunkRecords);
  const auto seen = drain_all(exact, error, largest);
  CHECK(seen.size() == 2 * TraceBuffer::kChunkRecords);
  CHECK(error.empty());
}

TEST_CASE("trace buffer: chunks that cannot be spilled are counted and reported, not hidden") {
  TraceBuffer buffer(1, "/nonexistent-mpidle-dir/spill");
  append_numbered(buffer, 3 * TraceBuffer::kChunkRecords + 7);
  CHECK(buffer.lost_records() == 3 * TraceBuffer::kChunkRecords);
  std::string error;
  std::size_t largest = 0;
  const auto seen = drain_all(buffer, error, largest);
  CHECK(seen.size() == 7);
  CHECK(seen.front() == 3 * TraceBuffer::kChunkRecords);
  CHECK_THAT(error, Catch::Contains(std::to_string(3 * TraceBuffer::kChunkRecords) +
                                    " trace records lost"));
}

TEST_CASE("trace buffer: a bounded buffer (the windows') gives room until its cap, then none") {
  TraceBuffer bounded(4, "");  // MiB: two chunks, no spill file
  REQUIRE(bounded.bounded());
  const std::uint64_t cap = 2 * TraceBuffer::kChunkRecords;
  for (std::uint64_t i = 0; i < cap; ++i) {
    TraceRecord* room = bounded.next_or_null();
    REQUIRE(room != nullptr);
    room->bytes = i;
  }
  CHECK(bounded.next_or_null() == nullptr);
  CHECK(bounded.next_or_null() == nullptr);  // and stays full
  CHECK(bounded.records() == cap);
  std::string error;
  std::uint64_t expected = 0;
  for (auto chunk = bounded.drain_next(error); !chunk.empty(); chunk = bounded.drain_next(error)) {
    for (const auto& r : chunk) CHECK(r.bytes == expected++);
  }
  CHECK(expected == cap);
  CHECK(error.empty());
  // A buffer that spills never refuses.
  TraceBuffer spilling(2, spill_path("spill-unbounded"));
  for (std::uint64_t i = 0; i <= TraceBuffer::kChunkRecords; ++i) {
    REQUIRE(spilling.next_or_null() != nullptr);
  }
}
