/* Dies in the way argv[1] names, after a few collectives, so that the fault suite
 * can compare how the job ends bare and under mpidle:
 *   abort [N] rank 1 calls MPI_Abort(MPI_COMM_WORLD, 5) while rank 0 waits, after
 *             N MPI_Iprobe calls on every rank (many trace records)
 *   segv      rank 1 raises SIGSEGV while rank 0 waits
 *   exit      every rank calls exit(4) without MPI_Finalize
 *   exit7     MPI_Finalize, then exit status 7
 *   linger S [FILE]  calls MPI for S seconds (a job to signal); with FILE, rank r
 *             keeps the number of loop steps it finished in FILE.r (a shared mapping,
 *             which outlives the process), so a test knows its calls when it is killed
 * Rank 0 prints one fixed line first and flushes it, so stdout is deterministic. */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double seconds_since(double start) {
  return MPI_Wtime() - start;
}

/* FILE.rank mapped shared (what is stored stays when the process is killed), or
 * a private counter without FILE. */
static volatile long* steps_file(const char* prefix, int rank) {
  static long unshared = 0;
  if (prefix == NULL) return &unshared;
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", prefix, rank);
  const int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate(fd, sizeof(long)) != 0) return &unshared;
  void* shared = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return shared == MAP_FAILED ? &unshared : (volatile long*)shared;
}

static void let_output_through(void) {
  const struct timespec pause = {0, 200 * 1000 * 1000};
  nanosleep(&pause, NULL);
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
  /* Launchers drop output still on its way when a rank's end makes them end the
   * job: rank 0's line is out well before any rank dies. */
  if (strcmp(how, "segv") == 0 || strcmp(how, "exit") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    let_output_through();
  }
  if (strcmp(how, "abort") == 0) {
    const long probes = argc > 2 ? atol(argv[2]) : 0;
    int flag = 0;
    for (long i = 0; i < probes; ++i)
      MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    let_output_through();
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 5);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(how, "segv") == 0) {
    if (rank == 1) raise(SIGSEGV);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(how, "exit") == 0) {
    exit(4);
  } else if (strcmp(how, "linger") == 0) {
    const double limit = argc > 2 ? atof(argv[2]) : 10;
    volatile long* steps = steps_file(argc > 3 ? argv[3] : NULL, rank);
    const double start = MPI_Wtime();
    int done = 0;
    while (!done) {
      MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      int mine = seconds_since(start) > limit;
      MPI_Allreduce(&mine, &done, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      *steps += 1;
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
