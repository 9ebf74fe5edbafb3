#pragma once
// Binomial-tree reduction of serialized data: ceil(log2 P) rounds, each rank
// sends once, and no rank ever receives every part from every other rank.

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "model/profile_tables.hpp"

namespace mpidle::profiler {

void send_bytes(const std::vector<std::byte>& bytes, int dest, MPI_Comm comm);
std::vector<std::byte> recv_bytes(int source, MPI_Comm comm);

// Rank 0 of `comm` gets every rank's part merged; the others get nothing.
// `decode` returns an empty optional for bytes it cannot read; such subtrees are
// left out and counted in `undecodable`.
template <typename T, typename Encode, typename Decode, typename Merge>
std::optional<T> tree_reduce(T local, MPI_Comm comm, Encode encode, Decode decode, Merge merge,
                             int& undecodable) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  for (int step = 1; step < size; step <<= 1) {
    if (rank & step) {
      send_bytes(encode(local), rank - step, comm);
      return std::nullopt;
    }
    if (rank + step < size) {
      if (auto child = decode(recv_bytes(rank + step, comm))) {
        merge(local, std::move(*child));
      } else {
        ++undecodable;
      }
    }
  }
  return local;
}

std::optional<model::ProfileTables> reduce_tables(model::ProfileTables local, MPI_Comm comm,
                                                  int& undecodable);

}  // namespace mpidle::profiler
