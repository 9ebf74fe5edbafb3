/* Halo exchange on a ring: Irecv and Isend to both neighbours, compute, Waitall.
 * Rank 0 computes kExtraUs longer than the others in every iteration, so its
 * neighbours wait about kExtraUs in every MPI_Waitall; rank 0 never waits.
 * --json prints the expected call counts, "scheduled_wait_s" (kExtraUs per
 * iteration for each neighbour of rank 0) and "total_wait_s": from the ranks' own
 * timestamps, the sum over iterations and ranks of max(0, latest neighbour's send
 * − own Waitall start). "completion_excess_s" is the time Waitall calls spent after
 * both neighbours had sent (microseconds on a quiet node; OS or hypervisor
 * interruptions show up here). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kIterations = 40, kComputeUs = 100, kExtraUs = 7500 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);

  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double out[2] = {0, 0}, in[2] = {0, 0};
  /* times[0..n): sends posted; [n..2n): Waitall began; [2n..3n): Waitall returned */
  double times[3 * kIterations];
  for (int i = 0; i < kIterations; ++i) {
    MPI_Request requests[4];
    MPI_Status statuses[4];
    MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &requests[1]);
    out[0] = out[1] = i;
    times[i] = example_now();
    MPI_Isend(&out[0], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(&out[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &requests[3]);
    example_busy_wait(1e-6 * (kComputeUs + (rank == 0 ? kExtraUs : 0)));
    times[kIterations + i] = example_now();
    MPI_Waitall(4, requests, statuses);
    times[2 * kIterations + i] = example_now();
  }
  const int n = 3 * kIterations;
  double* all = example_gather_times(times, n);

  if (rank == 0) {
    const int neighbours_of_0 = size == 1 ? 0 : size == 2 ? 1 : 2;
    double happened = 0, excess = 0;
    for (int r = 0; r < size; ++r) {
      const double* lt = all + (size_t)((r + size - 1) % size) * n;
      const double* rt = all + (size_t)((r + 1) % size) * n;
      const double* own = all + (size_t)r * n;
      for (int i = 0; i < kIterations; ++i) {
        const double sent = lt[i] > rt[i] ? lt[i] : rt[i];
        const double began = own[kIterations + i];
        const double ready = sent > began ? sent : began;
        happened += ready - began;
        excess += own[2 * kIterations + i] - ready;
      }
    }
    if (example_has_flag(argc, argv, "--json")) {
      printf(
          "{\"example\": \"nonblocking_halo\", \"ranks\": %d, \"iterations\": %d, "
          "\"irecv_per_rank\": %d, \"isend_per_rank\": %d, \"waitall_per_rank\": %d, "
          "\"scheduled_wait_s\": %.6f, \"total_wait_s\": %.6f, \"completion_excess_s\": %.6f}\n",
          size, kIterations, 2 * kIterations, 2 * kIterations, kIterations,
          neighbours_of_0 * kIterations * 1e-6 * kExtraUs, happened, excess > 0 ? excess : 0);
    } else {
      printf("nonblocking_halo: %d ranks, %d iterations\n", size, kIterations);
    }
    free(all);
  }
  MPI_Finalize();
  return 0;
}
