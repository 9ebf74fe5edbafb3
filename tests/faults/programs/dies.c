/* Dies in the way argv[1] names, after a few collectives, so that the fault suite
 * can compare how the job ends bare and under mpidle:
 *   abort [N] rank 1 calls MPI_Abort(MPI_COMM_WORLD, 5) while rank 0 waits, after
 *             N MPI_Iprobe calls on every rank (many trace records)
 *   segv      rank 1 raises SIGSEGV while rank 0 waits
 *   exit      every rank calls exit(4) without MPI_Finalize
 *   exit7     MPI_Finalize, then exit status 7
 *   linger    computes and calls MPI for argv[2] seconds (a job to signal)
 * Rank 0 prints one fixed line first and flushes it, so stdout is deterministic. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double seconds_since(double start) {
  return MPI_Wtime() - start;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* how = argc > 1 ? argv[1] : "exit7";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double x = rank + 1, sum = 0;
  for (int i = 0; i < 10; ++i) MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("started %s, sum %.1f\n", how, sum);
    fflush(stdout);
  }
  if (strcmp(how, "abort") == 0) {
    const long probes = argc > 2 ? atol(argv[2]) : 0;
    int flag = 0;
    for (long i = 0; i < probes; ++i)
      MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 5);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(how, "segv") == 0) {
    if (rank == 1) raise(SIGSEGV);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(how, "exit") == 0) {
    exit(4);
  } else if (strcmp(how, "linger") == 0) {
    const double limit = argc > 2 ? atof(argv[2]) : 10;
    const double start = MPI_Wtime();
    int done = 0;
    while (!done) {
      MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      int mine = seconds_since(start) > limit;
      MPI_Allreduce(&mine, &done, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) {
    /* Before MPI_Finalize: after it, a launcher that sees another rank's status
     * 7 may end rank 0 before it prints (Open MPI does). */
    printf("finished\n");
    fflush(stdout);
  }
  MPI_Finalize();
  return strcmp(how, "exit7") == 0 ? 7 : 0;
}
