/* Every collective kind the replay knows, on MPI_COMM_WORLD and on a communicator
 * whose ranks run against the world's (MPI_Comm_split with a reversed key), so
 * that a scan's order is not the world rank's: Bcast and Reduce from a root that
 * moves, Allreduce, Gather, Scan and Exscan, with a little work that varies by
 * rank and iteration in between so that members arrive in changing orders. For
 * the parallel replay's trees at 8 ranks and more (tests/integration/test_replay.cpp).
 * --json: "ranks", "iterations" and "checksum" (the reduced values, so that the
 * output does not depend on the profiler). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kIterations = 12 };

static void collectives(MPI_Comm comm, int i, double* checksum) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = i % size;
  double value = rank + i, out = 0;
  double* all = malloc(sizeof(double) * (size_t)size);
  example_busy_wait(20e-6 * ((rank * 7 + i * 3) % 5));
  MPI_Bcast(&value, 1, MPI_DOUBLE, root, comm);
  MPI_Reduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, (root + 1) % size, comm);
  example_busy_wait(20e-6 * ((rank * 3 + i) % 4));
  MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  *checksum += out;
  MPI_Gather(&value, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, root, comm);
  example_busy_wait(20e-6 * ((rank + i * 5) % 3));
  MPI_Scan(&value, &out, 1, MPI_DOUBLE, MPI_SUM, comm);
  *checksum += out;
  out = 0;
  MPI_Exscan(&value, &out, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(all);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  double checksum = 0;
  for (int i = 0; i < kIterations; ++i) {
    collectives(MPI_COMM_WORLD, i, &checksum);
    collectives(reversed, i, &checksum);
  }
  double total = 0;
  MPI_Reduce(&checksum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf("{\"ranks\": %d, \"iterations\": %d, \"checksum\": %.1f}\n", size, kIterations, total);
  }
  MPI_Comm_free(&reversed);
  MPI_Finalize();
  return 0;
}
