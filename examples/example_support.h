/* Helpers shared by the examples: exact busy waits (sleeping would let the OS
 * reschedule), and gathering each rank's own timestamps to rank 0 so that the
 * truth is what really happened (a preempted rank arrives late, and the example
 * knows it), not only what was scheduled. Timestamps are CLOCK_MONOTONIC, one
 * clock for all processes of a node, so the truth is exact on a single node.
 * (Not MPI_Wtime: Open MPI counts it from each process's own start.) */
#ifndef MPIDLE_EXAMPLE_SUPPORT_H
#define MPIDLE_EXAMPLE_SUPPORT_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds on the node's monotonic clock: comparable between the ranks of a node. */
static inline double example_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds of CPU time this thread used: what a busy wait really got of a core. */
static inline double example_cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Spins for `seconds`. */
static inline void example_busy_wait(double seconds) {
  const double start = example_now();
  while (example_now() - start < seconds) {
  }
}

static inline int example_has_flag(int argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], flag) == 0) return 1;
  }
  return 0;
}

static inline int example_by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* How much `n` durations vary: the sum of |value - median| (sorts `values`). What no
 * single baseline of a call's cost can tell from waiting. */
static inline double example_spread(double* values, int n) {
  if (n <= 0) return 0;
  qsort(values, (size_t)n, sizeof(double), example_by_value);
  const double median = values[n / 2];
  double spread = 0;
  for (int i = 0; i < n; ++i)
    spread += values[i] > median ? values[i] - median : median - values[i];
  return spread;
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
