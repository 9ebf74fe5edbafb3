/* Static imbalance: before every MPI_Allreduce, rank r computes r * kWorkUs.
 * Rank r therefore waits about (size-1-r) * kWorkUs in every Allreduce: its
 * minimum already contains waiting, so the local-minimum estimate misses it and
 * the global minimum (across ranks) does not.
 * --json prints the truth: "scheduled_wait_s" from the work schedule, and
 * "total_wait_s" from the ranks' arrival times: the sum over Allreduces and ranks
 * of (last arrival − own arrival). "completion_excess_s" is the time ranks spent
 * in MPI_Allreduce after the last rank had arrived (microseconds on a quiet node;
 * interruptions by the OS or hypervisor show up here). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kIterations = 30, kWorkUs = 10000 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);

  double value = 1.0, sum = 0.0;
  double arrived[2 * kIterations]; /* arrival, then return at [kIterations + i] */
  for (int i = 0; i < kIterations; ++i) {
    example_busy_wait(1e-6 * kWorkUs * rank);
    arrived[i] = example_now();
    MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    arrived[kIterations + i] = example_now();
  }
  const int n = 2 * kIterations;
  double* all = example_gather_times(arrived, n);

  if (rank == 0) {
    double scheduled = 0, happened = 0, excess = 0;
    for (int r = 0; r < size; ++r) scheduled += kIterations * 1e-6 * kWorkUs * (size - 1 - r);
    for (int i = 0; i < kIterations; ++i) {
      double last = 0;
      for (int r = 0; r < size; ++r) last = all[r * n + i] > last ? all[r * n + i] : last;
      for (int r = 0; r < size; ++r) {
        happened += last - all[r * n + i];
        excess += all[r * n + kIterations + i] - last;
      }
    }
    if (example_has_flag(argc, argv, "--json")) {
      printf(
          "{\"example\": \"imbalance_allreduce\", \"ranks\": %d, \"iterations\": %d, "
          "\"scheduled_wait_s\": %.6f, \"total_wait_s\": %.6f, \"completion_excess_s\": %.6f, "
          "\"sum\": %.1f}\n",
          size, kIterations, scheduled, happened, excess > 0 ? excess : 0, sum);
    } else {
      printf("imbalance_allreduce: %d ranks, %d allreduces, scheduled wait %.6f s\n", size,
             kIterations, scheduled);
    }
    free(all);
  }
  MPI_Finalize();
  return 0;
}
