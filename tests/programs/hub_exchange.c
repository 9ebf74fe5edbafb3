/* A hub and spokes: in every step rank 0 sends to each other rank, then receives
 * one reply from each. Every pair has its own message size (rank 0 → r: 100 × r
 * doubles; r → 0: 100 × (r + 2) doubles). Rank 0 computes 3 ms in even steps, the
 * others 3 ms × 2 / (r + 1) in odd steps, so that each receive sometimes waits and
 * sometimes finds its message there (which the minimum method needs).
 *
 * The first double of every message is the sender's time at the send (the node's
 * monotonic clock: Open MPI's MPI_Wtime starts at each process's MPI_Init), so the
 * receiver knows how long each receive waited (late sender: send − receive
 * enter; one host, one clock). At the end rank 0 prints one JSON object: for every
 * rank and peer, the bytes sent to and received from it, the observed wait in
 * receives from it, the whole time of the sends and receives with it, and its own
 * time from the end of MPI_Init to MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kSteps = 20, kUnit = 100 };

static int count_to(int from, int to) {
  return from == 0 ? kUnit * to : kUnit * (from + 2);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double started = example_now();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int largest = kUnit * (size + 2);
  double* out = calloc((size_t)largest, sizeof(double));
  double* in = calloc((size_t)largest, sizeof(double));
  /* Per peer: bytes sent, bytes received, observed wait, time in calls with it (s). */
  enum { kFields = 4 };
  double* mine = calloc((size_t)size * kFields, sizeof(double));

  for (int step = 0; step < kSteps; ++step) {
    if (rank == 0) {
      if (step % 2 == 0) example_busy_wait(3e-3);
      for (int r = 1; r < size; ++r) {
        out[0] = example_now();
        MPI_Send(out, count_to(0, r), MPI_DOUBLE, r, 0, MPI_COMM_WORLD);
        mine[kFields * r + 3] += example_now() - out[0];
        mine[kFields * r] += 8.0 * count_to(0, r);
      }
      for (int r = 1; r < size; ++r) {
        const double enter = example_now();
        MPI_Recv(in, largest, MPI_DOUBLE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        mine[kFields * r + 3] += example_now() - enter;
        mine[kFields * r + 1] += 8.0 * count_to(r, 0);
        if (in[0] > enter) mine[kFields * r + 2] += in[0] - enter;
      }
    } else {
      if (step % 2 == 1) example_busy_wait(6e-3 / (rank + 1));
      const double enter = example_now();
      MPI_Recv(in, largest, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      mine[3] += example_now() - enter;
      mine[1] += 8.0 * count_to(0, rank);
      if (in[0] > enter) mine[2] += in[0] - enter;
      out[0] = example_now();
      MPI_Send(out, count_to(rank, 0), MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
      mine[3] += example_now() - out[0];
      mine[0] += 8.0 * count_to(rank, 0);
    }
  }

  double* all = rank == 0 ? calloc((size_t)size * size * kFields, sizeof(double)) : NULL;
  MPI_Gather(mine, kFields * size, MPI_DOUBLE, all, kFields * size, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("{\"steps\": %d, \"pairs\": [", kSteps);
    const char* sep = "";
    for (int r = 0; r < size; ++r) {
      for (int p = 0; p < size; ++p) {
        const double* v = all + kFields * (r * size + p);
        if (v[0] + v[1] == 0) continue;
        printf(
            "%s{\"rank\": %d, \"peer\": %d, \"sent\": %.0f, \"received\": %.0f, "
            "\"wait_s\": %.9f, \"calls_s\": %.9f}",
            sep, r, p, v[0], v[1], v[2], v[3]);
        sep = ",";
      }
    }
    printf("], \"elapsed_s\": %.9f}\n", example_now() - started);
    free(all);
  }
  free(mine);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
