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

namespace mpidle::transport {

void send_bytes(const std::vector<std::byte>& bytes, int dest, MPI_Comm comm);
std::vector<std::byte> recv_bytes(int source, MPI_Comm comm);
// Sends `bytes` to `partner` and receives its bytes at the same time (a pair of
// blocking sends of large parts would wait for each other).
std::vector<std::byte> exchange_bytes(const std::vector<std::byte>& bytes, int partner,
                                      MPI_Comm comm);
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

// Every rank gets every rank's part merged, by recursive doubling: ceil(log2 P)
// rounds where P is a power of two, two more otherwise (the ranks beyond the largest
// power of two hand their part to a partner first and get the result last), where a
// reduction and a broadcast take twice the rounds. Two partners merge the lower
// ranks' part first, so every rank ends with the same result even where `merge` is
// not exactly associative (sums of doubles). Subtrees whose bytes `decode` cannot
// read are left out and counted; a rank beyond the power of two that cannot read
// the result gets nothing.
template <typename T, typename Encode, typename Decode, typename Merge>
std::optional<T> tree_allreduce(T local, MPI_Comm comm, Encode encode, Decode decode, Merge merge,
                                TreeTraffic& traffic) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int power = 1;
  while (power * 2 <= size) power *= 2;
  auto take = [&](const std::vector<std::byte>& bytes, bool from_lower) {
    traffic.received(bytes.size());
    auto other = decode(bytes);
    if (!other) {
      ++traffic.undecodable;
      return;
    }
    if (from_lower) {
      merge(*other, std::move(local));
      local = std::move(*other);
    } else {
      merge(local, std::move(*other));
    }
  };
  if (rank >= power) {
    ++traffic.rounds;
    send_bytes(encode(local), rank - power, comm);
    const std::vector<std::byte> bytes = recv_bytes(rank - power, comm);
    ++traffic.rounds;
    traffic.received(bytes.size());
    auto result = decode(bytes);
    if (!result) ++traffic.undecodable;
    return result;
  }
  if (rank + power < size) {
    ++traffic.rounds;
    take(recv_bytes(rank + power, comm), false);
  }
  for (int step = 1; step < power; step <<= 1) {
    ++traffic.rounds;
    const int partner = rank ^ step;
    take(exchange_bytes(encode(local), partner, comm), partner < rank);
  }
  if (rank + power < size) {
    ++traffic.rounds;
    send_bytes(encode(local), rank + power, comm);
  }
  return local;
}

// Rank 0's bytes to every rank over the same binomial tree, in ceil(log2 P) rounds.
std::vector<std::byte> tree_broadcast(std::vector<std::byte> bytes, MPI_Comm comm,
                                      TreeTraffic& traffic);

}  // namespace mpidle::transport
