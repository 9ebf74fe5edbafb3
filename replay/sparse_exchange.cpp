#include "sparse_exchange.hpp"

#include <sched.h>

#include <climits>

namespace mpidle::replay {

Parcels sparse_exchange(MPI_Comm comm, const Parcels& outgoing, int tag) {
  // Never throws halfway: every rank must reach the barrier.
  std::vector<MPI_Request> sends(outgoing.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < outgoing.size(); ++i) {
    const auto& [to, bytes] = outgoing[i];
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) continue;  // left out: see header
    PMPI_Issend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, comm, &sends[i]);
  }
  Parcels incoming;
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool in_barrier = false;
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    PMPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &arrived, &status);
    if (arrived) {
      int count = 0;
      PMPI_Get_count(&status, MPI_BYTE, &count);
      std::vector<std::byte> bytes(static_cast<std::size_t>(count));
      PMPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
      incoming.emplace_back(status.MPI_SOURCE, std::move(bytes));
      continue;
    }
    if (!in_barrier) {
      int done = 0;
      PMPI_Testall(static_cast<int>(sends.size()), sends.data(), &done, MPI_STATUSES_IGNORE);
      if (done) {
        PMPI_Ibarrier(comm, &barrier);
        in_barrier = true;
      }
    } else {
      int done = 0;
      PMPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
      if (done) break;
    }
    // Nothing arrived: let the other ranks of an oversubscribed node run, as the
    // replay does while it waits.
    sched_yield();
  }
  return incoming;
}

}  // namespace mpidle::replay
