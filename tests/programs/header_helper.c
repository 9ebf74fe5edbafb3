/* Calls MPI from a function defined in a header (header_helper.h) and from this
   file, so that a test can check each callsite's file and line. Built at -O0 and
   -O2 with DWARF 5. */
#include <mpi.h>

#include "header_helper.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  for (int i = 0; i < 3; ++i) header_helper_barrier(MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &argc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* MAIN_CALL */
  MPI_Finalize();
  return 0;
}
