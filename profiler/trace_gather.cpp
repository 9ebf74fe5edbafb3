#include "trace_gather.hpp"

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "log.hpp"
#include "tree_reduce.hpp"

namespace mpidle::profiler {
namespace {

constexpr int kGoTag = 7311;     // rank 0 → rank r: send your trace now
constexpr int kBatchTag = 7312;  // rank r → rank 0: one batch, or the end mark
constexpr std::uint64_t kEndMark = std::numeric_limits<std::uint64_t>::max();

struct BatchHeader {
  std::uint64_t records = 0;   // kEndMark: the tables follow (send_bytes)
  std::uint64_t counters = 0;  // values after the records
  std::uint64_t expected = 0;  // records the rank will send in all
};

void send_batch(const BatchHeader& header, std::span<const model::TraceRecord> records,
                std::span<const std::int64_t> counters, std::vector<std::byte>& message,
                MPI_Comm comm) {
  message.resize(sizeof header + records.size_bytes() + counters.size_bytes());
  std::byte* p = message.data();
  std::memcpy(p, &header, sizeof header);
  if (!records.empty()) std::memcpy(p + sizeof header, records.data(), records.size_bytes());
  if (!counters.empty()) {
    std::memcpy(p + sizeof header + records.size_bytes(), counters.data(), counters.size_bytes());
  }
  PMPI_Send(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0, kBatchTag, comm);
}

// Rank 0's side for one rank: its batches, then its tables. Every message is
// taken even when something is wrong, so that the rank is never left blocked.
std::optional<model::Trace> receive_rank_trace(int source, MPI_Comm comm) {
  model::RankTrace received;
  std::vector<std::byte> message;
  std::string problem;
  for (;;) {
    MPI_Status status;
    PMPI_Probe(source, kBatchTag, comm, &status);
    int size = 0;
    PMPI_Get_count(&status, MPI_BYTE, &size);
    message.resize(static_cast<std::size_t>(size < 0 ? 0 : size));
    PMPI_Recv(message.data(), size, MPI_BYTE, source, kBatchTag, comm, MPI_STATUS_IGNORE);
    BatchHeader header;
    if (message.size() < sizeof header) {
      problem = "a short batch";
      continue;
    }
    std::memcpy(&header, message.data(), sizeof header);
    if (header.records == kEndMark) break;
    const std::uint64_t body = message.size() - sizeof header;
    const bool records_fit = header.records <= body / sizeof(model::TraceRecord);
    const std::uint64_t rest = records_fit ? body - header.records * sizeof(model::TraceRecord) : 0;
    if (!records_fit || rest % sizeof(std::int64_t) != 0 ||
        header.counters != rest / sizeof(std::int64_t)) {
      problem = "a malformed batch";
      continue;
    }
    if (received.records.empty() && header.expected > 0) {
      received.records.reserve(std::min<std::uint64_t>(header.expected, std::uint64_t{1} << 32));
    }
    const auto* records =
        reinterpret_cast<const model::TraceRecord*>(message.data() + sizeof header);
    received.records.insert(received.records.end(), records, records + header.records);
    const auto* counters = reinterpret_cast<const std::int64_t*>(
        message.data() + sizeof header + header.records * sizeof(model::TraceRecord));
    received.counters.insert(received.counters.end(), counters, counters + header.counters);
  }
  const std::vector<std::byte> bytes = recv_bytes(source, comm);
  if (!problem.empty()) {
    warn("rank " + std::to_string(source) + " sent " + problem + "; its trace is left out");
    return std::nullopt;
  }
  try {
    model::Trace trace = model::decode_trace(text_of(bytes));
    if (trace.ranks.size() != 1) throw model::TraceError("not one rank's trace");
    model::RankTrace& rank = trace.ranks[0];
    rank.records = std::move(received.records);
    rank.counters = std::move(received.counters);
    model::check_rank_trace(trace, rank);
    return trace;
  } catch (const model::TraceError& e) {
    warn("rank " + std::to_string(source) + "'s trace is left out: " + e.what());
    return std::nullopt;
  }
}

}  // namespace

std::optional<model::Trace> gather_rank_traces(MPI_Comm comm, std::uint64_t own_records,
                                               const RankTraceSource& source) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  if (rank != 0) {
    PMPI_Recv(nullptr, 0, MPI_BYTE, 0, kGoTag, comm, MPI_STATUS_IGNORE);
    std::vector<std::byte> message;
    BatchHeader header;
    header.expected = own_records;
    const model::Trace tables = source(
        [&](std::span<const model::TraceRecord> records, std::span<const std::int64_t> counters) {
          header.records = records.size();
          header.counters = counters.size();
          send_batch(header, records, counters, message, comm);
          header.expected = 0;  // said once, with the first batch
        });
    header.records = kEndMark;
    send_batch(header, {}, {}, message, comm);
    send_bytes(bytes_of(model::encode_trace(tables)), 0, comm);
    return std::nullopt;
  }
  model::RankTrace own;
  own.records.reserve(own_records);
  model::Trace merged = source(
      [&](std::span<const model::TraceRecord> records, std::span<const std::int64_t> counters) {
        own.records.insert(own.records.end(), records.begin(), records.end());
        own.counters.insert(own.counters.end(), counters.begin(), counters.end());
      });
  merged.ranks.at(0).records = std::move(own.records);
  merged.ranks.at(0).counters = std::move(own.counters);
  for (int r = 1; r < size; ++r) {
    PMPI_Send(nullptr, 0, MPI_BYTE, r, kGoTag, comm);
    if (auto trace = receive_rank_trace(r, comm)) model::merge_traces(merged, std::move(*trace));
  }
  return merged;
}

}  // namespace mpidle::profiler
