#include "yielding.hpp"

#include <sched.h>

namespace mpidle::replay {

void wait_yielding(MPI_Request& request, MPI_Status* status) {
  for (int done = 0;;) {
    PMPI_Test(&request, &done, status);
    if (done) return;
    sched_yield();
  }
}

void allreduce_yielding(MPI_Comm comm, void* data, int count, MPI_Datatype type, MPI_Op op) {
  MPI_Request request = MPI_REQUEST_NULL;
  PMPI_Iallreduce(MPI_IN_PLACE, data, count, type, op, comm, &request);
  wait_yielding(request);
}

}  // namespace mpidle::replay
