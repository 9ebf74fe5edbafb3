/* Times MPI calls from inside the program, so that the same binary can be run
 * bare and under mpidle:
 *   call_cost iprobe N    N x MPI_Iprobe with nothing pending (the cheapest call)
 *   call_cost testany N   N x MPI_Testany over 4 receives that never match (a
 *                         polling loop's call, as in HPC Challenge's RandomAccess)
 *   call_cost pingpong N  N 0-byte ping-pongs between ranks 0 and 1
 * Rank 0 prints one number: ns per Iprobe or Testany, or ns per half round trip. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = argc > 1 ? argv[1] : "iprobe";
  const long n = argc > 2 ? atol(argv[2]) : 1000000;
  MPI_Barrier(MPI_COMM_WORLD);
  double ns = 0;
  if (strcmp(mode, "iprobe") == 0) {
    int flag = 0;
    MPI_Status status;
    const double t0 = MPI_Wtime();
    for (long i = 0; i < n; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, &status);
    ns = (MPI_Wtime() - t0) * 1e9 / (double)n;
  } else if (strcmp(mode, "testany") == 0) {
    double in[4];
    MPI_Request pending[4];
    for (int i = 0; i < 4; ++i) {
      MPI_Irecv(&in[i], 1, MPI_DOUBLE, MPI_ANY_SOURCE, 54321, MPI_COMM_WORLD, &pending[i]);
    }
    int index = 0, flag = 0;
    const double t0 = MPI_Wtime();
    for (long i = 0; i < n; ++i) MPI_Testany(4, pending, &index, &flag, MPI_STATUS_IGNORE);
    ns = (MPI_Wtime() - t0) * 1e9 / (double)n;
    for (int i = 0; i < 4; ++i) {
      MPI_Cancel(&pending[i]);
      MPI_Wait(&pending[i], MPI_STATUS_IGNORE);
    }
  } else {
    char byte = 0;
    const double t0 = MPI_Wtime();
    for (long i = 0; i < n; ++i) {
      if (rank == 0) {
        MPI_Send(&byte, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&byte, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(&byte, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&byte, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    ns = (MPI_Wtime() - t0) * 1e9 / (double)n / 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%.2f\n", ns);
  MPI_Finalize();
  return 0;
}
