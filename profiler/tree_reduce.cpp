#include "tree_reduce.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "model/table_codec.hpp"
#include "model/table_merge.hpp"

namespace mpidle::profiler {
namespace {

constexpr int kSizeTag = 7301;
constexpr int kDataTag = 7302;
constexpr std::size_t kChunk = std::size_t{1} << 30;  // MPI counts are int

void send_bytes(const std::vector<std::byte>& bytes, int dest, MPI_Comm comm) {
  std::uint64_t size = bytes.size();
  PMPI_Send(&size, 1, MPI_UINT64_T, dest, kSizeTag, comm);
  for (std::size_t done = 0; done < bytes.size(); done += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, bytes.size() - done));
    PMPI_Send(bytes.data() + done, n, MPI_BYTE, dest, kDataTag, comm);
  }
}

std::vector<std::byte> recv_bytes(int source, MPI_Comm comm) {
  std::uint64_t size = 0;
  PMPI_Recv(&size, 1, MPI_UINT64_T, source, kSizeTag, comm, MPI_STATUS_IGNORE);
  std::vector<std::byte> bytes(size);
  for (std::size_t done = 0; done < bytes.size(); done += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, bytes.size() - done));
    PMPI_Recv(bytes.data() + done, n, MPI_BYTE, source, kDataTag, comm, MPI_STATUS_IGNORE);
  }
  return bytes;
}

}  // namespace

std::optional<model::ProfileTables> reduce_tables(model::ProfileTables local, MPI_Comm comm,
                                                  int& undecodable) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  for (int step = 1; step < size; step <<= 1) {
    if (rank & step) {
      send_bytes(model::encode_tables(local), rank - step, comm);
      return std::nullopt;
    }
    if (rank + step < size) {
      const auto bytes = recv_bytes(rank + step, comm);
      if (auto child = model::decode_tables(bytes)) {
        model::merge_tables(local, *child);
      } else {
        ++undecodable;
      }
    }
  }
  return local;
}

}  // namespace mpidle::profiler
