/* N MPI_Iprobe calls per rank (nothing ever matches): a cheap way to make many
 * trace records. With a second argument "peak", each rank prints its peak
 * resident memory after MPI_Finalize, read from /proc/self/status (VmHWM). With a
 * third argument "last", only the last rank makes N calls (the others 1,000); with
 * "exchange", every rank makes N MPI_Sendrecv calls around the ring instead, so
 * that the records are mostly messages. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long peak_rss_kib(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kib = atol(line + 6);
  fclose(f);
  return kib;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? atol(argv[1]) : 1000;
  const int report_peak = argc > 2 && strcmp(argv[2], "peak") == 0;
  const int only_last = argc > 3 && strcmp(argv[3], "last") == 0;
  const int exchange = argc > 3 && strcmp(argv[3], "exchange") == 0;
  int rank = 0, size = 1, flag = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = only_last && rank != size - 1 ? 1000 : calls;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (long i = 0; i < n; ++i) {
    if (exchange) {
      long out = i, in = -1;
      MPI_Sendrecv(&out, 1, MPI_LONG, right, 5, &in, 1, MPI_LONG, left, 5, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    } else {
      MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (report_peak) printf("rank %d peak_rss_kib %ld\n", rank, peak_rss_kib());
  return 0;
}
