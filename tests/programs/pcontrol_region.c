/* MPI_Pcontrol(0) ... MPI_Pcontrol(1) excludes a region: of the barriers below,
 * only kBefore + kAfter per rank are profiled. Prints the expected count. */
#include <mpi.h>
#include <stdio.h>

enum { kBefore = 7, kPaused = 50, kAfter = 5 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < kBefore; ++i) MPI_Barrier(MPI_COMM_WORLD);
  MPI_Pcontrol(0);
  for (int i = 0; i < kPaused; ++i) MPI_Barrier(MPI_COMM_WORLD);
  MPI_Pcontrol(1);
  for (int i = 0; i < kAfter; ++i) MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("{\"barriers_profiled_per_rank\": %d}\n", kBefore + kAfter);
  MPI_Finalize();
  return 0;
}
