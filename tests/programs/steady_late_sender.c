/* A late sender that is late by the same time every step: rank 0 computes 5 ms
 * before each MPI_Send of 8 KiB, rank 1 posts its MPI_Recv at once, 40 times, after
 * a barrier. Every receive waits about the same, so the lowest cluster of the
 * receiver's durations is waiting, not cost: a baseline taken from the receiver's
 * own durations alone reads it as cost.
 * Each message starts with the sender's clock (example_now) at the start of its
 * MPI_Send: rank 1 knows how long each receive waited, max(0, send start − receive
 * start).
 * --json: "recv_wait_s" (that truth), "messages", and "completion_excess_s" (time
 * after the send started beyond the smallest such time: transfer jitter). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "example_support.h"

enum { kIterations = 40, kBytes = 8192 };
static const double kComputeS = 5e-3;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static char buffer[kBytes];
  double wait = 0, after_sum = 0, best_after = 1e9;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < kIterations && size >= 2; ++i) {
    if (rank == 0) {
      example_busy_wait(kComputeS);
      const double start = example_now();
      memcpy(buffer, &start, sizeof start);
      MPI_Send(buffer, kBytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
      const double began = example_now();
      MPI_Recv(buffer, kBytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double ended = example_now();
      double sent = 0;
      memcpy(&sent, buffer, sizeof sent);
      if (sent > began) wait += sent - began;
      const double after = ended - (sent > began ? sent : began);
      after_sum += after;
      if (after < best_after) best_after = after;
    }
  }
  if (rank == 1) {
    double result[2] = {wait, after_sum - kIterations * best_after};
    MPI_Send(result, 2, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
  }
  if (rank == 0 && size >= 2) {
    double result[2];
    MPI_Recv(result, 2, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (example_has_flag(argc, argv, "--json")) {
      printf("{\"messages\": %d, \"recv_wait_s\": %.9f, \"completion_excess_s\": %.9f}\n",
             kIterations, result[0], result[1]);
    }
  }
  MPI_Finalize();
  return 0;
}
