/* Allreduce alternating on a one-rank communicator (MPI_Comm_split by rank) and on
 * MPI_COMM_WORLD, as row/column communicators alternate in real codes; nothing
 * is made late on purpose. Element 0 of every world Allreduce carries the rank's
 * clock (example_now) at the call's start and the operation is MPI_MAX, so each rank learns
 * the last start and knows exactly how long it waited (N x N: last start - own
 * start). --json: "world_allreduces", "self_allreduces" (per rank),
 * "world_wait_s" (that truth over ranks and iterations) and "completion_excess_s"
 * (time after the last start beyond each rank's smallest such time: jitter). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kIterations = 300, kDoubles = 8192 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm self;
  MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &self);
  double* in = calloc(kDoubles, sizeof(double));
  double* out = calloc(kDoubles, sizeof(double));
  double wait = 0, after_sum = 0, best_after = 1e9;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < kIterations; ++i) {
    MPI_Allreduce(in, out, kDoubles, MPI_DOUBLE, MPI_MAX, self);
    example_busy_wait(50e-6);
    const double start = example_now();
    in[0] = start;
    MPI_Allreduce(in, out, kDoubles, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double ended = example_now();
    wait += out[0] - start;
    const double after = ended - out[0];
    after_sum += after;
    if (after < best_after) best_after = after;
  }
  double mine[2] = {wait, after_sum - kIterations * best_after}, all[2] = {0, 0};
  MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf(
        "{\"ranks\": %d, \"world_allreduces\": %d, \"self_allreduces\": %d, "
        "\"world_wait_s\": %.9f, \"completion_excess_s\": %.9f}\n",
        size, kIterations, kIterations, all[0], all[1]);
  }
  free(in);
  free(out);
  MPI_Comm_free(&self);
  MPI_Finalize();
  return 0;
}
