/* Helpers shared by the examples: exact busy waits (sleeping would let the OS
 * reschedule), and gathering each rank's own timestamps to rank 0 so that the
 * truth is what really happened (a preempted rank arrives late, and the example
 * knows it), not only what was scheduled. Timestamps are MPI_Wtime, which is
 * one clock for all ranks of a node; the truth is exact on a single node. */
#ifndef MPIDLE_EXAMPLE_SUPPORT_H
#define MPIDLE_EXAMPLE_SUPPORT_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Spins for `seconds`. */
static inline void example_busy_wait(double seconds) {
  const double start = MPI_Wtime();
  while (MPI_Wtime() - start < seconds) {
  }
}

static inline int example_has_flag(int argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], flag) == 0) return 1;
  }
  return 0;
}

/* Gathers `n` timestamps from every rank into a size*n array on rank 0 (NULL elsewhere). */
static inline double* example_gather_times(const double* mine, int n) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double* all = rank == 0 ? (double*)malloc(sizeof(double) * (size_t)n * (size_t)size) : NULL;
  MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return all;
}

#endif
