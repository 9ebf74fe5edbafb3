/* A receiver that always posts its largest buffer (1 MiB) while the sender sends
 * 8 B and 1 MiB messages in turn, as halo codes and master/worker programs do.
 * Who is late varies: in some iterations the sender computes longer before it
 * sends (the receive waits), in others the receiver does (no waiting), so both
 * sizes also have calls without waiting. Each message starts with the sender's
 * clock (example_now) at the start of its MPI_Send: rank 1 knows exactly how long each
 * receive waited, max(0, send start - receive start).
 * --json: "recv_wait_s" (that truth), "small_messages", "large_messages", and
 * "completion_excess_s" (time after the send started beyond the smallest such
 * time of each size: transfer jitter). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_support.h"

enum { kIterations = 40, kLarge = 1 << 20, kSmall = 8 };
static const int kSenderLateUs[4] = {2500, 0, 4000, 1500};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char* buffer = calloc(kLarge, 1);
  double wait = 0, after_sum[2] = {0, 0}, best_after[2] = {1e9, 1e9};
  int count[2] = {0, 0};
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < kIterations && size >= 2; ++i) {
    const int large = i % 2;
    const int late = kSenderLateUs[(i / 2) % 4];
    if (rank == 0) {
      example_busy_wait(1e-6 * (late ? late : 100));
      const double start = example_now();
      memcpy(buffer, &start, sizeof start);
      MPI_Send(buffer, large ? kLarge : kSmall, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
      if (!late) example_busy_wait(2e-3); /* the receiver is the late one */
      const double began = example_now();
      MPI_Recv(buffer, kLarge, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double ended = example_now();
      double sent = 0;
      memcpy(&sent, buffer, sizeof sent);
      if (sent > began) wait += sent - began;
      const double after = ended - (sent > began ? sent : began);
      after_sum[large] += after;
      if (after < best_after[large]) best_after[large] = after;
      ++count[large];
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 1) {
    const double excess =
        after_sum[0] - count[0] * best_after[0] + after_sum[1] - count[1] * best_after[1];
    double result[2] = {wait, excess};
    MPI_Send(result, 2, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
  }
  if (rank == 0 && size >= 2) {
    double result[2];
    MPI_Recv(result, 2, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (example_has_flag(argc, argv, "--json")) {
      printf(
          "{\"iterations\": %d, \"small_messages\": %d, \"large_messages\": %d, "
          "\"recv_wait_s\": %.9f, \"completion_excess_s\": %.9f}\n",
          kIterations, kIterations / 2, kIterations / 2, result[0], result[1]);
    }
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
