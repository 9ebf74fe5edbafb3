#include "profiler/finalize/own_trace.hpp"

#include "model/large_array.hpp"
#include "profiler/finalize/offset_tree.hpp"
#include "profiler/finalize/rank_trace_stream.hpp"
#include "sync/clock_offset.hpp"

namespace mpidle::profiler {
namespace {

constexpr int kOffsetTag = 7311;

}  // namespace

model::Trace own_trace(Context& context, const model::ClockMeasurement& final) {
  model::LargeArray<model::TraceRecord> records;
  model::LargeArray<std::int64_t> counters;
  records.reserve(buffered_trace_records(context));
  model::Trace trace = stream_rank_trace(
      context, final,
      [&](std::span<const model::TraceRecord> batch, std::span<const std::int64_t> counts) {
        records.insert(records.end(), batch.begin(), batch.end());
        counters.insert(counters.end(), counts.begin(), counts.end());
      });
  trace.ranks.at(0).records = std::move(records);
  trace.ranks.at(0).counters = std::move(counters);
  return trace;
}

void compose_offsets(MPI_Comm comm, model::RankTrace& mine, bool one_node) {
  if (one_node) return;
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  auto estimate = [](const model::ClockMeasurement& m) {
    return sync::OffsetEstimate{m.offset_ns, m.rtt_ns, m.at_ns};
  };
  auto measurement = [](const sync::OffsetEstimate& e) {
    return model::ClockMeasurement{e.offset_ns, e.rtt_ns, e.at_ns};
  };
  const int parent = offset_tree_parent(rank);
  if (rank != 0 && parent != 0) {
    model::ClockMeasurement to_root[2];
    PMPI_Recv(to_root, sizeof to_root, MPI_BYTE, parent, kOffsetTag, comm, MPI_STATUS_IGNORE);
    mine.init = measurement(sync::compose(estimate(mine.init), estimate(to_root[0])));
    mine.final = measurement(sync::compose(estimate(mine.final), estimate(to_root[1])));
  }
  if (rank == 0) return;  // its children's offsets are to rank 0 already
  const model::ClockMeasurement composed[2] = {mine.init, mine.final};
  const int lowest_bit = rank & -rank;
  for (int step = 1; step < lowest_bit && rank + step < size; step <<= 1) {
    PMPI_Send(composed, sizeof composed, MPI_BYTE, rank + step, kOffsetTag, comm);
  }
}

}  // namespace mpidle::profiler
