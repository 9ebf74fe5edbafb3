#include "transport/byte_tree.hpp"

#include <cstring>

#include "transport/yielding.hpp"

namespace mpidle::transport {
namespace {
constexpr int kSizeTag = 7301;
constexpr int kDataTag = 7302;
constexpr std::size_t kChunk = std::size_t{1} << 30;  // MPI counts are int
}  // namespace

// The tree's sends and receives wait yielding (yielding.hpp): the finalize's trees
// are most of its rounds.
void send_bytes(const std::vector<std::byte>& bytes, int dest, MPI_Comm comm) {
  std::uint64_t size = bytes.size();
  MPI_Request request = MPI_REQUEST_NULL;
  PMPI_Isend(&size, 1, MPI_UINT64_T, dest, kSizeTag, comm, &request);
  wait_yielding(request);
  for (std::size_t done = 0; done < bytes.size(); done += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, bytes.size() - done));
    PMPI_Isend(bytes.data() + done, n, MPI_BYTE, dest, kDataTag, comm, &request);
    wait_yielding(request);
  }
}

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

std::string text_of(const std::vector<std::byte>& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::vector<std::byte> recv_bytes(int source, MPI_Comm comm) {
  std::uint64_t size = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  PMPI_Irecv(&size, 1, MPI_UINT64_T, source, kSizeTag, comm, &request);
  wait_yielding(request);
  std::vector<std::byte> bytes(size);
  for (std::size_t done = 0; done < bytes.size(); done += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, bytes.size() - done));
    PMPI_Irecv(bytes.data() + done, n, MPI_BYTE, source, kDataTag, comm, &request);
    wait_yielding(request);
  }
  return bytes;
}

std::vector<std::byte> exchange_bytes(const std::vector<std::byte>& bytes, int partner,
                                      MPI_Comm comm) {
  std::uint64_t size = bytes.size(), theirs = 0;
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  PMPI_Irecv(&theirs, 1, MPI_UINT64_T, partner, kSizeTag, comm, &requests[0]);
  PMPI_Isend(&size, 1, MPI_UINT64_T, partner, kSizeTag, comm, &requests[1]);
  wait_yielding(requests[0]);
  wait_yielding(requests[1]);
  std::vector<std::byte> received(theirs);
  const std::size_t longer = std::max(bytes.size(), received.size());
  for (std::size_t done = 0; done < longer; done += kChunk) {
    if (done < received.size()) {
      const int n = static_cast<int>(std::min(kChunk, received.size() - done));
      PMPI_Irecv(received.data() + done, n, MPI_BYTE, partner, kDataTag, comm, &requests[0]);
    }
    if (done < bytes.size()) {
      const int n = static_cast<int>(std::min(kChunk, bytes.size() - done));
      PMPI_Isend(bytes.data() + done, n, MPI_BYTE, partner, kDataTag, comm, &requests[1]);
    }
    wait_yielding(requests[0]);
    wait_yielding(requests[1]);
  }
  return received;
}

std::vector<std::byte> tree_broadcast(std::vector<std::byte> bytes, MPI_Comm comm,
                                      TreeTraffic& traffic) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  // The reduction's tree walked backwards: a rank receives from the parent it sent
  // to, then passes the bytes to the children it received from.
  int step = 1;
  while (step < size && !(rank & step)) step <<= 1;
  if (rank != 0) {
    bytes = recv_bytes(rank - step, comm);
    traffic.received(bytes.size());
    ++traffic.rounds;
  }
  for (step >>= 1; step >= 1; step >>= 1) {
    if (rank + step < size) send_bytes(bytes, rank + step, comm);
  }
  return bytes;
}

}  // namespace mpidle::transport
