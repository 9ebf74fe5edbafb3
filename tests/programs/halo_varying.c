/* Non-blocking halo on a ring with a late sender that varies: in iteration i,
 * rank i % size computes kDelayUs[i % 4] longer before it sends (sometimes 0, so
 * that every rank also has iterations without waiting). Every message carries its
 * sender's clock (example_now) at the start of the Isend, so each rank knows exactly how
 * long each of its Waitalls waited (Scalasca's late sender, one wait per call):
 *   max(0, min(latest send start, Waitall end) - Waitall start).
 * --json prints the call counts, "waitall_wait_s" (that truth summed over ranks
 * and iterations) and "completion_excess_s" (time inside Waitalls after both
 * messages had been sent, beyond each rank's smallest such time: jitter). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kIterations = 48, kComputeUs = 200 };
static const int kDelayUs[4] = {0, 3000, 1000, 6000};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double wait = 0, excess = 0, best_after = 1e9, after_sum = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < kIterations; ++i) {
    double in[2] = {0, 0}, out[2];
    MPI_Request requests[4];
    MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &requests[1]);
    example_busy_wait(1e-6 * (kComputeUs + (i % size == rank ? kDelayUs[i % 4] : 0)));
    out[0] = out[1] = example_now();
    MPI_Isend(&out[0], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(&out[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &requests[3]);
    const double began = example_now();
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    const double ended = example_now();
    const double sent = in[0] > in[1] ? in[0] : in[1];
    const double until = sent < ended ? sent : ended;
    if (until > began) wait += until - began;
    const double ready = sent > began ? sent : began;
    const double after = ended - ready;
    after_sum += after;
    if (after < best_after) best_after = after;
  }
  excess = after_sum - kIterations * best_after;
  double mine[2] = {wait, excess}, all[2] = {0, 0};
  MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf(
        "{\"ranks\": %d, \"iterations\": %d, \"waitall_per_rank\": %d, "
        "\"waitall_wait_s\": %.9f, \"completion_excess_s\": %.9f}\n",
        size, kIterations, kIterations, all[0], all[1]);
  }
  MPI_Finalize();
  return 0;
}
