/* 80 MPI_Barrier calls at 80 distinct callsites, each once: with
 * MPIDLE_TABLE_ENTRIES=64 the call table cannot hold them all. */
#include <mpi.h>

#define BARRIER MPI_Barrier(MPI_COMM_WORLD);
#define TEN BARRIER BARRIER BARRIER BARRIER BARRIER BARRIER BARRIER BARRIER BARRIER BARRIER

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  TEN TEN TEN TEN TEN TEN TEN TEN MPI_Finalize();
  return 0;
}
