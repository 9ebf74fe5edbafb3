#pragma once
// Binomial-tree reduction and broadcast of serialized data over PMPI: ceil(log2 P)
// rounds, each rank sends once, and no rank ever receives every part from every
// other rank. The profiler's finalize and mpidle-replay both use it.

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mpidle::replay {

void send_bytes(const std::vector<std::byte>& bytes, int dest, MPI_Comm comm);
std::vector<std::byte> recv_bytes(int source, MPI_Comm comm);
// The codecs that encode to a string, on the wire as bytes and back.
std::vector<std::byte> bytes_of(const std::string& text);
std::string text_of(const std::vector<std::byte>& bytes);

// What one rank saw of a tree operation: for the profile's `run.finalize` and the
// scale benchmark.
struct TreeTraffic {
  int rounds = 0;                     // rounds this rank took part in
  std::uint64_t bytes_received = 0;   // by this rank
  std::uint64_t largest_message = 0;  // the largest one this rank received
  int undecodable = 0;                // subtrees whose bytes could not be read (left out)
  void received(std::size_t bytes) {
    bytes_received += bytes;
    largest_message = std::max<std::uint64_t>(largest_message, bytes);
  }
};

// Rank 0 of `comm` gets every rank's part merged; the others get nothing. Each
// merge happens where two subtrees meet, so what travels up is already merged.
// `decode` returns an empty optional for bytes it cannot read; such subtrees are
// left out and counted.
template <typename T, typename Encode, typename Decode, typename Merge>
std::optional<T> tree_reduce(T local, MPI_Comm comm, Encode encode, Decode decode, Merge merge,
                             TreeTraffic& traffic) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  for (int step = 1; step < size; step <<= 1) {
    ++traffic.rounds;
    if (rank & step) {
      send_bytes(encode(local), rank - step, comm);
      return std::nullopt;
    }
    if (rank + step < size) {
      const std::vector<std::byte> bytes = recv_bytes(rank + step, comm);
      traffic.received(bytes.size());
      if (auto child = decode(bytes)) {
        merge(local, std::move(*child));
      } else {
        ++traffic.undecodable;
      }
    }
  }
  return local;
}

// Rank 0's bytes to every rank over the same binomial tree, in ceil(log2 P) rounds.
std::vector<std::byte> tree_broadcast(std::vector<std::byte> bytes, MPI_Comm comm,
                                      TreeTraffic& traffic);

}  // namespace mpidle::replay
