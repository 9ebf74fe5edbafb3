/* CALLSITES distinct callsites (one MPI_Comm_rank call instruction each), called
 * in a loop for argv[1] seconds; then every rank kills itself with SIGKILL, as the
 * out-of-memory killer would, leaving its checkpoints (bench/checkpoint_cost.py). */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef CALLSITES
#define CALLSITES 1000
#endif

#define C1 MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#define C10 C1 C1 C1 C1 C1 C1 C1 C1 C1 C1
#define C100 C10 C10 C10 C10 C10 C10 C10 C10 C10 C10
#define C1000 C100 C100 C100 C100 C100 C100 C100 C100 C100 C100
#define C10000 C1000 C1000 C1000 C1000 C1000 C1000 C1000 C1000 C1000 C1000

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double seconds = argc > 1 ? atof(argv[1]) : 5;
  int rank = 0;
  const double start = MPI_Wtime();
  while (MPI_Wtime() - start < seconds) {
#if CALLSITES == 10000
    C10000
#else
    C1000
#endif
  }
  kill(getpid(), SIGKILL);
  return 0;
}
