/* Large transfers after a late sender that varies: rank 0 receives 1 MiB from rank 1
 * with MPI_Recv, 64 times; before its send in iteration i, rank 1 computes
 * kDelayUs[i % 4] longer (sometimes 0). The message's first double is the sender's
 * clock (example_now) just before MPI_Send, so the receiver knows exactly how long
 * each receive waited (Scalasca's late sender):
 *   max(0, min(send start, receive end) - receive start);
 * the rest of each receive is the transfer. --json prints "recv_wait_s" (that truth
 * summed), "recv_time_s" (all the receives' time) and "transfer_spread_s": over every
 * receive, |transfer - median transfer| summed, how much moving 1 MiB varies. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kIterations = 64, kDoubles = 131072 };
static const int kDelayUs[4] = {0, 2000, 500, 4000};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double* buffer = calloc(kDoubles, sizeof(double));
  double transfers[kIterations];
  double wait = 0, time = 0, spread = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < kIterations; ++i) {
    if (rank == 1) {
      example_busy_wait(1e-6 * (200 + kDelayUs[i % 4]));
      buffer[0] = example_now();
      MPI_Send(buffer, kDoubles, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 0) {
      example_busy_wait(200e-6);
      const double began = example_now();
      MPI_Recv(buffer, kDoubles, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double ended = example_now();
      const double sent = buffer[0] < ended ? buffer[0] : ended;
      if (sent > began) wait += sent - began;
      time += ended - began;
      transfers[i] = ended - (sent > began ? sent : began);
    }
  }
  if (rank == 0) {
    spread = example_spread(transfers, kIterations);
    if (example_has_flag(argc, argv, "--json")) {
      printf(
          "{\"ranks\": %d, \"recv_per_rank\": %d, \"recv_wait_s\": %.9f, \"recv_time_s\": %.9f, "
          "\"transfer_spread_s\": %.9f}\n",
          size, kIterations, wait, time, spread);
    }
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
