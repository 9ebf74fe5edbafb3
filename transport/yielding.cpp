#include "transport/yielding.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>

namespace mpidle::transport {

void Idle::operator()() {
  constexpr unsigned kYields = 64;
  if (++m_tests <= kYields) {
    sched_yield();
    return;
  }
  // 10 µs, doubling to 80 µs.
  const unsigned doublings = std::min(m_tests - kYields, 3u);
  const long ns = 10000L << doublings;
  const timespec pause{0, ns};
  nanosleep(&pause, nullptr);
}

void wait_yielding(MPI_Request& request, MPI_Status* status) {
  Idle idle;
  for (int done = 0;;) {
    PMPI_Test(&request, &done, status);
    if (done) return;
    idle();
  }
}

void allreduce_yielding(MPI_Comm comm, void* data, int count, MPI_Datatype type, MPI_Op op) {
  MPI_Request request = MPI_REQUEST_NULL;
  PMPI_Iallreduce(MPI_IN_PLACE, data, count, type, op, comm, &request);
  wait_yielding(request);
}

}  // namespace mpidle::transport
