#pragma once
// The merged trace of a run: one file, written by rank 0 (docs/trace-format.md).
// Holds every rank's records with their raw local timestamps, the clock offset
// measurements, and the synchronized timestamps once synchronization has run.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "large_array.hpp"
#include "profile_tables.hpp"
#include "trace_events.hpp"

namespace mpidle::model {

// Version 2 adds the index of rank blocks after them; version 1 files are still read.
inline constexpr std::uint32_t kTraceFormatVersion = 2;

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Offset of a rank's clock to rank 0's, measured at MPI_Init and at MPI_Finalize.
struct ClockMeasurement {
  std::int64_t offset_ns = 0;  // local − rank 0
  std::int64_t rtt_ns = 0;
  std::int64_t at_ns = 0;  // rank 0's time of the measurement
};

struct RankTrace {
  std::int32_t rank = 0;
  ClockMeasurement init;
  ClockMeasurement final;
  std::uint64_t spilled_chunks = 0;  // chunks that went through the spill file
  std::uint64_t lost_records = 0;    // records that could not be kept (spill failed)
  // The per-record arrays may be file-backed (large_array.hpp) in a finalize out of core.
  LargeArray<TraceRecord> records;  // raw local timestamps
  LargeArray<std::int64_t> synced;  // 2 per record (enter, exit); empty before sync
  // PAPI counts of the compute burst before each record (Trace::counter_names
  // values per record, −1 where unknown); empty without counters.
  LargeArray<std::int64_t> counters;
};

struct Trace {
  std::vector<std::string> functions;
  std::vector<Callsite> callsites;
  std::int64_t min_latency_ns = 0;         // smallest one-way latency seen while measuring offsets
  std::vector<std::string> counter_names;  // PAPI events counted per compute burst
  std::vector<RankTrace> ranks;            // by rank
};

void write_trace(const std::filesystem::path& file, const Trace& trace);
// Throws TraceError for a missing, truncated or foreign file.
Trace read_trace(const std::filesystem::path& file);

// The same format in memory, for shipping partial traces between ranks.
std::string encode_trace(const Trace& trace);
Trace decode_trace(const std::string& bytes);  // throws TraceError

// Timestamps, clock offsets and round trips a trace may hold: ±2^60 ns (36
// years). Sums and differences of a few such values stay far inside int64, so
// no arithmetic on an accepted trace can overflow.
inline constexpr std::int64_t kMaxTraceTimeNs = std::int64_t{1} << 60;

// Throws TraceError unless `rank`'s records name functions and callsites of
// `trace`, end after they begin, and its counters and synchronized times match;
// every time and clock measurement within ±kMaxTraceTimeNs.
void check_rank_trace(const Trace& trace, const RankTrace& rank);

// One rank's section of the file, as the pieces a writer places one after the
// other (the record arrays are the rank's own memory, not copies): a parallel
// writer puts every rank's section at its offset after the head.
class RankSectionBytes {
 public:
  explicit RankSectionBytes(const RankTrace& rank);  // keeps references into `rank`
  const std::array<std::span<const std::byte>, 7>& pieces() const { return m_pieces; }
  std::uint64_t size() const { return m_size; }

 private:
  std::array<std::byte, 4 + 2 * sizeof(ClockMeasurement) + 16> m_head{};
  std::array<std::uint64_t, 3> m_counts{};
  std::array<std::span<const std::byte>, 7> m_pieces;
  std::uint64_t m_size = 0;
};

// Everything before the first rank's section, for a trace of `ranks` ranks.
std::string encode_trace_head(const Trace& trace, std::uint64_t ranks);

// The index after the rank sections: u64 n, then where each of the n sections
// starts (u64 each, from the start of the file), then where the index starts (u64)
// and the mark "MPIDLEIX". A parallel writer writes the count and the tail, and
// every process its own ranks' entries at 8 + 8 × position after the index start.
std::string encode_trace_index_count(std::uint64_t ranks);
std::string encode_trace_index_tail(std::uint64_t index_offset);
std::uint64_t trace_index_size(std::uint64_t ranks);

// The trace's tables and every rank's header, but the records (and synchronized
// times and counters) only of the ranks `keep(position, rank_count)` selects: a
// replay process reads its own ranks of a trace larger than its memory.
using RankSelection = std::function<bool(std::size_t position, std::size_t ranks)>;
Trace read_trace_ranks(const std::filesystem::path& file, const RankSelection& keep);

// Appends the ranks of `from`, unifying functions and callsites (as merge_tables).
void merge_traces(Trace& into, Trace&& from);

}  // namespace mpidle::model
