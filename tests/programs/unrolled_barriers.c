/* A loop of three barriers, built with -O2: GCC unrolls it completely, so the
 * three calls have three return addresses on one source line. --json prints the
 * loop counts. */
#include <mpi.h>
#include <stdio.h>

#include "example_support.h"

enum { kOuter = 20, kInner = 3 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double x = rank, y = 0;
  for (int i = 0; i < kOuter; ++i) {
    for (int k = 0; k < kInner; ++k) MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf("{\"outer\": %d, \"inner\": %d}\n", kOuter, kInner);
  }
  MPI_Finalize();
  return 0;
}
