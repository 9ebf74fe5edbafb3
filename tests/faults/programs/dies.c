/* Dies in the way argv[1] names, after a few collectives, so that the fault suite
 * can compare how the job ends bare and under mpidle:
 *   abort [N] rank 1 calls MPI_Abort(MPI_COMM_WORLD, 5) while rank 0 waits, after
 *             N MPI_Iprobe calls on every rank (many trace records)
 *   segv      rank 1 raises SIGSEGV while rank 0 waits
 *   exit      every rank calls exit(4) without MPI_Finalize
 *   exit7     MPI_Finalize, then exit status 7
 *   linger S [FILE]  calls MPI for S seconds (a job to signal); with FILE, rank r
 *             keeps the number of loop steps it finished in FILE.r (a shared mapping,
 *             which outlives the process), so a test knows its calls when it is killed:
 *             the count, the start (CLOCK_REALTIME, ns), the process id and the
 *             count at the end of each 10 ms since the start (struct steps_record)
 *   deaf S [FILE]    linger, with SIGTERM ignored from before MPI_Init (a job only
 *             SIGKILL ends: a batch system's KillWait expires)
 *   hang S [FILE]    linger, then every rank receives from the next one: a deadlock
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

/* What a lingering rank keeps of its steps: the count first (the tests read it
 * alone), then when it started and the count at the end of each 10 ms slot since. */
enum { kSlotNs = 10 * 1000 * 1000, kSlots = 30000 };
struct steps_record {
  long steps;
  long start_ns;
  long pid; /* the rank's process, for a test that kills one rank */
  long at_slot[kSlots];
};

static long realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* FILE.rank mapped shared (what is stored stays when the process is killed), or
 * a private record without FILE. */
static volatile struct steps_record* steps_file(const char* prefix, int rank) {
  static struct steps_record unshared;
  if (prefix == NULL) return &unshared;
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", prefix, rank);
  const int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate(fd, sizeof(struct steps_record)) != 0) return &unshared;
  void* shared = mmap(NULL, sizeof(struct steps_record), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return shared == MAP_FAILED ? &unshared : (volatile struct steps_record*)shared;
}

/* One loop step done: the count, and the count of the slot it ended in. */
static void count_step(volatile struct steps_record* r) {
  r->steps += 1;
  const long slot = (realtime_ns() - r->start_ns) / kSlotNs;
  if (slot >= 0 && slot < kSlots) r->at_slot[slot] = r->steps;
}

static void let_output_through(void) {
  const struct timespec pause = {0, 200 * 1000 * 1000};
  nanosleep(&pause, NULL);
}

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "exit7";
  if (strcmp(how, "deaf") == 0) signal(SIGTERM, SIG_IGN);
  MPI_Init(&argc, &argv);
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
  } else if (strcmp(how, "linger") == 0 || strcmp(how, "deaf") == 0 || strcmp(how, "hang") == 0) {
    const double limit = argc > 2 ? atof(argv[2]) : 10;
    volatile struct steps_record* steps = steps_file(argc > 3 ? argv[3] : NULL, rank);
    steps->start_ns = realtime_ns();
    steps->pid = getpid();
    const double start = MPI_Wtime();
    int done = 0;
    while (!done) {
      MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      int mine = seconds_since(start) > limit;
      MPI_Allreduce(&mine, &done, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      count_step(steps);
    }
    if (strcmp(how, "hang") == 0) {
      int size = 1;
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      MPI_Recv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
