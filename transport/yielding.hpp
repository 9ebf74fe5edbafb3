#pragma once
// Waiting without spinning inside the MPI library. A blocking call spins there; on
// a node with more ranks than cores each spin holds the core for a scheduler
// quantum while the rank it waits for cannot run (measured at 8 ranks on 2 cores:
// 20-40 ms per MPI_Allreduce). These test and yield the processor instead, as the
// parallel replay does while it waits; on a core of its own a rank pays one
// sched_yield per unanswered test, then short sleeps (Idle).

#include <mpi.h>

namespace mpidle::transport {

// What a waiting loop does after a test that found nothing: yields the processor,
// and once a wait has lasted a few dozen tests, sleeps, a little longer each time
// (up to 80 µs), so that a node's waiting ranks leave its
// cores to the ranks that still work rather than take turns spinning.
class Idle {
 public:
  void operator()();

 private:
  unsigned m_tests = 0;
};

// Waits for `request` (MPI_REQUEST_NULL returns at once); `status` as MPI_Wait's.
void wait_yielding(MPI_Request& request, MPI_Status* status = MPI_STATUS_IGNORE);

// MPI_Allreduce in place over `comm`.
void allreduce_yielding(MPI_Comm comm, void* data, int count, MPI_Datatype type, MPI_Op op);

}  // namespace mpidle::transport
