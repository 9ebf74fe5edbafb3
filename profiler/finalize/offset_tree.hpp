#pragma once
// Clock offsets by Cristian's method, organized as a binomial tree: in round k
// every rank r with r mod 2^(k+1) = 2^k is measured by its parent r − 2^k (≥ 10
// ping-pongs, more while round trips stay long; shortest kept), so all ranks are
// done in ceil(log2 P)
// rounds. Each rank learns its offset to its parent; rank 0 composes the path to
// itself after the trace merge.

#include <mpi.h>

#include "model/trace_file.hpp"
#include "profiler/runtime/trace_clock.hpp"

namespace mpidle::profiler {

inline constexpr int kOffsetPingPongs = 12;

// Ranks that share memory run under one kernel and read one clock (CLOCK_MONOTONIC,
// or the TSC anchored to it), so their offset is 0 by construction: only the round
// trip is worth measuring, for the latency, and only once.
struct NodeLocality {
  // This rank's edges in the tree that join two ranks of one node: bit k for the
  // edge measured in round k (to the parent or to a child).
  std::uint64_t edges = 0;
  bool one_node = false;  // every rank of `comm` on this one
};
// Collective over `comm`.
NodeLocality node_locality(MPI_Comm comm);

// Collective over `comm`. Rank 0 gets a zero measurement. An edge in `node_local`
// reports offset 0; at MPI_Init (`at_init` null) its round trips are measured for
// the latency, at finalize it exchanges nothing and keeps the round trip of
// `at_init`. Off a node, under oversubscription, a measurement can take a quarter
// of a second per level (the budget below); on one node it is free.
model::ClockMeasurement measure_offset_to_parent(MPI_Comm comm, const TraceClock& clock,
                                                 std::uint64_t node_local,
                                                 const model::ClockMeasurement* at_init);

// Parent of a rank in the measurement tree (its rank with the lowest set bit cleared).
inline int offset_tree_parent(int rank) {
  return rank & (rank - 1);
}

// The rank that `rank` is measured by (below it) or measures (above it) in the round
// of `step` (2^k), or −1 where it has no edge in that round.
inline int offset_tree_partner(int rank, int step, int size) {
  if (rank % (2 * step) == step) return rank - step;
  if (rank % (2 * step) == 0 && rank + step < size) return rank + step;
  return -1;
}

}  // namespace mpidle::profiler
