/* A shared library: exit_step(), and a destructor function that finalizes MPI when
 * armed, as a library that owns MPI may do when the process ends. */
#include "exit_step.h"

#include <mpi.h>
#include <stdio.h>

static int g_finalize_when_unloaded = 0;

void main_steps(const char* order, int provided) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double x = rank + 1, sum = 0;
  for (int i = 0; i < kMainAllreduces; ++i) {
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    printf("main returns (%s), sum %.1f, thread level %s\n", order, sum,
           provided == MPI_THREAD_MULTIPLE ? "multiple" : "lower");
  }
}

void exit_step(const char* where) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("finalizing from %s, sum %.1f\n", where, sum);
    fflush(stdout);
  }
  MPI_Finalize();
}

void finalize_when_unloaded(void) {
  g_finalize_when_unloaded = 1;
}

__attribute__((destructor)) static void at_unload(void) {
  if (g_finalize_when_unloaded) exit_step("library destructor");
}
