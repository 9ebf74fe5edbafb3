#include "tree_reduce.hpp"

#include <algorithm>
#include <cstdint>

#include "model/table_codec.hpp"
#include "model/table_merge.hpp"

namespace mpidle::profiler {
namespace {
constexpr int kSizeTag = 7301;
constexpr int kDataTag = 7302;
constexpr std::size_t kChunk = std::size_t{1} << 30;  // MPI counts are int
}  // namespace

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

std::optional<model::ProfileTables> reduce_tables(model::ProfileTables local, MPI_Comm comm,
                                                  int& undecodable) {
  return tree_reduce(
      std::move(local), comm, [](const model::ProfileTables& t) { return model::encode_tables(t); },
      [](const std::vector<std::byte>& bytes) { return model::decode_tables(bytes); },
      [](model::ProfileTables& into, model::ProfileTables&& from) {
        model::merge_tables(into, from);
      },
      undecodable);
}

}  // namespace mpidle::profiler
