/* Polls as a benchmark does: rank 1 calls MPI_Iprobe with nothing pending `IPROBES`
 * times, then receives `MESSAGES` messages by polling each with MPI_Test, and
 * times every one of its polls itself (MPI_Wtime around the call). Prints, with
 * --json, what it counted and measured: "iprobes", "tests", "completed_tests"
 * (the Test calls that completed a message), "iprobe_s" and "test_s" (the time
 * inside those calls as the program saw it, which includes any profiler's own
 * work around them). */
#include <mpi.h>
#include <stdio.h>

#include "example_support.h"

enum { IPROBES = 200000, MESSAGES = 40 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long iprobes = 0, tests = 0, completed_tests = 0;
  double iprobe_s = 0, test_s = 0;
  int value = 0;
  if (rank == 1) {
    for (int i = 0; i < IPROBES; ++i) {
      int flag = 0;
      const double t0 = MPI_Wtime();
      MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      iprobe_s += MPI_Wtime() - t0;
      ++iprobes;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int m = 0; m < MESSAGES; ++m) {
    if (rank == 0) {
      example_busy_wait(2e-4);
      MPI_Send(&m, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
      MPI_Request request;
      MPI_Irecv(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &request);
      int flag = 0;
      while (!flag) {
        const double t0 = MPI_Wtime();
        MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
        test_s += MPI_Wtime() - t0;
        ++tests;
      }
      ++completed_tests;
    }
  }
  MPI_Finalize();
  if (rank == 1 && example_has_flag(argc, argv, "--json")) {
    printf(
        "{\"iprobes\": %ld, \"tests\": %ld, \"completed_tests\": %ld, \"iprobe_s\": %.9f, "
        "\"test_s\": %.9f}\n",
        iprobes, tests, completed_tests, iprobe_s, test_s);
  }
  return 0;
}
