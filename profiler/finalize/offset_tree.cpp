#include "profiler/finalize/offset_tree.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "sync/clock_offset.hpp"
#include "transport/yielding.hpp"

namespace mpidle::profiler {
namespace {
constexpr int kAskTag = 7311;
constexpr int kTimeTag = 7312;
constexpr int kResultTag = 7313;
// Right after MPI_Init a busy node can take milliseconds per round trip for tens of
// milliseconds; the parent keeps asking until a round trip is short, within a budget.
constexpr std::int64_t kGoodRttNs = 50'000;
constexpr std::int64_t kBudgetNs = 250'000'000;
constexpr int kMaxPingPongs = 4000;

// A receive that yields while nothing arrived (transport/yielding.hpp): a spinning
// receive keeps the partner from answering for a scheduler quantum on a node with
// more ranks than cores, and the round trips (and the budget) grow with it. The
// answer is read the moment the test finds it, so the shortest round trip stays.
void receive_yielding(void* data, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                      MPI_Status& status) {
  MPI_Request request = MPI_REQUEST_NULL;
  PMPI_Irecv(data, count, type, source, tag, comm, &request);
  transport::wait_yielding(request, &status);
}
}  // namespace

NodeLocality node_locality(MPI_Comm comm) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  MPI_Comm node = MPI_COMM_NULL;
  if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS ||
      node == MPI_COMM_NULL) {
    return {};
  }
  NodeLocality locality;
  int on_node = 0;
  PMPI_Comm_size(node, &on_node);
  locality.one_node = on_node == size;
  MPI_Group all = MPI_GROUP_NULL, local = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &all);
  PMPI_Comm_group(node, &local);
  int k = 0;
  for (int step = 1; step < size && k < 64; step <<= 1, ++k) {
    int other = offset_tree_partner(rank, step, size);
    if (other < 0) continue;
    int there = MPI_UNDEFINED;
    PMPI_Group_translate_ranks(all, 1, &other, local, &there);
    if (there != MPI_UNDEFINED) locality.edges |= std::uint64_t{1} << k;
  }
  PMPI_Group_free(&all);
  PMPI_Group_free(&local);
  PMPI_Comm_free(&node);
  return locality;
}

model::ClockMeasurement measure_offset_to_parent(MPI_Comm comm, const TraceClock& clock,
                                                 std::uint64_t node_local,
                                                 const model::ClockMeasurement* at_init) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  model::ClockMeasurement mine;
  int k = 0;
  for (int step = 1; step < size; step <<= 1, ++k) {
    const int partner = offset_tree_partner(rank, step, size);
    if (partner < 0) continue;
    const bool one_node = k < 64 && (node_local >> k & 1) != 0;
    if (one_node && at_init != nullptr) {
      // Nothing to learn: the offset is 0 and the round trip was measured at MPI_Init.
      if (partner < rank) mine = {0, at_init->rtt_ns, clock.now_ns()};
      continue;
    }
    if (partner < rank) {
      // Child: answer the parent's questions with the local time until it sends the result.
      const int parent = partner;
      for (;;) {
        std::int64_t result[3] = {0, 0, 0};
        MPI_Status status;
        receive_yielding(result, 3, MPI_INT64_T, parent, MPI_ANY_TAG, comm, status);
        if (status.MPI_TAG == kResultTag) {
          mine = model::ClockMeasurement{one_node ? 0 : result[0], result[1], result[2]};
          break;
        }
        const std::int64_t t = clock.now_ns();
        PMPI_Send(&t, 1, MPI_INT64_T, parent, kTimeTag, comm);
      }
    } else {
      // Parent: ask the child, keep the reading with the shortest round trip.
      const int child = partner;
      std::vector<sync::ClockSample> samples;
      const std::int64_t begin = clock.now_ns();
      std::int64_t best = INT64_MAX;
      while (static_cast<int>(samples.size()) < kOffsetPingPongs ||
             (best > kGoodRttNs && clock.now_ns() - begin < kBudgetNs &&
              static_cast<int>(samples.size()) < kMaxPingPongs)) {
        sync::ClockSample s;
        s.ask_ns = clock.now_ns();
        PMPI_Send(nullptr, 0, MPI_BYTE, child, kAskTag, comm);
        MPI_Status status;
        receive_yielding(&s.remote_ns, 1, MPI_INT64_T, child, kTimeTag, comm, status);
        s.answer_ns = clock.now_ns();
        best = std::min(best, s.answer_ns - s.ask_ns);
        samples.push_back(s);
      }
      const auto e = sync::estimate_offset(samples).value_or(sync::OffsetEstimate{});
      const std::int64_t result[3] = {e.offset_ns, e.rtt_ns, e.at_ns};
      PMPI_Send(result, 3, MPI_INT64_T, child, kResultTag, comm);
    }
  }
  return mine;
}

}  // namespace mpidle::profiler
