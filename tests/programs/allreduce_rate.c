/* Frequent small collectives without imbalance, as a Krylov solver makes them: 20,000
 * MPI_Allreduce of two doubles on MPI_COMM_WORLD, and one on a one-rank communicator.
 * The first double is each rank's clock (example_now) just before the call, reduced
 * with MPI_MAX, so each rank knows when the last rank entered and exactly how long each
 * of its calls waited (Scalasca's wait at N x N):
 *   max(0, min(last enter, call end) - call start).
 * --json prints the calls, "allreduce_wait_s" (that truth summed over ranks and calls)
 * and "cost_spread_s": over every call, |cost - median cost| summed, where a call's
 * cost is its time after the last rank entered. That is how much the cost of a call
 * that did not wait varies: no single baseline can tell it from waiting. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kCalls = 20000 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double* costs = malloc(sizeof(double) * kCalls);
  double wait = 0, spread = 0;
  double x[2] = {0, 1}, y[2];
  MPI_Allreduce(x, y, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_SELF);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < kCalls; ++i) {
    x[0] = example_now();
    x[1] = i;
    MPI_Allreduce(x, y, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double ended = example_now();
    const double last = y[0] < ended ? y[0] : ended;
    if (last > x[0]) wait += last - x[0];
    costs[i] = ended - (y[0] > x[0] ? y[0] : x[0]);
  }
  spread = example_spread(costs, kCalls);
  double mine[2] = {wait, spread}, all[2] = {0, 0};
  MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf(
        "{\"ranks\": %d, \"allreduce_per_rank\": %d, \"allreduce_wait_s\": %.9f, "
        "\"cost_spread_s\": %.9f}\n",
        size, kCalls, all[0], all[1]);
  }
  free(costs);
  MPI_Finalize();
  return 0;
}
