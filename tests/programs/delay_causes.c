/* Wait states whose root cause is known by construction (the delay analysis,
 * docs/analysis-format.md, "Why it waited"). 3 ranks, 20 steps, each after a
 * barrier; the first argument picks the case:
 *   imbalance  every rank computes 60 ms, rank 0 100 ms, then MPI_Allreduce: ranks
 *              1 and 2 wait there for rank 0's extra computation.
 *   chain      rank 0 computes 60 ms and sends to rank 1; rank 1 computes 5 ms,
 *              receives, and sends on to rank 2; rank 2 computes 5 ms and receives.
 *              Rank 1 waits for rank 0's computation; rank 2 waits because rank 1
 *              waited: propagated from rank 1's receive.
 *   transfer   rank 0 sends 64 MiB to rank 1, whose receive was posted before, then
 *              64 B to rank 2, which receives at once: rank 2 waits for rank 0's
 *              transfer (communication, bandwidth).
 * The delays are tens of milliseconds, so that a scheduler's time slice on a node
 * with fewer cores than ranks (busy-polling ranks) stays a small part of them.
 * Each message starts with its sender's clock at the start of its send, and the
 * Allreduce carries every rank's entry: each rank knows how long it waited.
 * --json: "wait_s", the waiting observed per rank (seconds, summed over steps). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_support.h"

enum { kSteps = 20, kSmall = 64, kLarge = 64 << 20 };

/* A blocking receive from `source`, adding how long it waited for the send to
 * `waited`; and a send that starts with its clock. Macros, so that each use is a
 * callsite of its own (its line). */
#define RECEIVE(bytes, source)                                                           \
  do {                                                                                   \
    const double began_ = example_now();                                                 \
    MPI_Recv(buffer, (bytes), MPI_BYTE, (source), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); \
    double sent_ = 0;                                                                    \
    memcpy(&sent_, buffer, sizeof sent_);                                                \
    if (sent_ > began_) waited += sent_ - began_;                                        \
  } while (0)
#define SEND(bytes, dest)                                           \
  do {                                                              \
    const double now_ = example_now();                              \
    memcpy(buffer, &now_, sizeof now_);                             \
    MPI_Send(buffer, (bytes), MPI_BYTE, (dest), 0, MPI_COMM_WORLD); \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* which = argc > 1 ? argv[1] : "";
  if (size != 3 || (strcmp(which, "imbalance") != 0 && strcmp(which, "chain") != 0 &&
                    strcmp(which, "transfer") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: mpiexec -n 3 delay_causes imbalance|chain|transfer\n");
    MPI_Finalize();
    return 2;
  }
  char* buffer = calloc(kLarge, 1);
  double waited = 0;
  for (int step = 0; step < kSteps; ++step) {
    /* transfer: rank 1's receive is posted before rank 0 can send, so that rank 0's
     * send is the transfer alone, never waiting for its receiver. */
    MPI_Request large = MPI_REQUEST_NULL;
    if (strcmp(which, "transfer") == 0 && rank == 1) {
      MPI_Irecv(buffer, kLarge, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &large);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(which, "imbalance") == 0) {
      example_busy_wait(rank == 0 ? 100e-3 : 60e-3);
      const double entered = example_now();
      double last = entered;
      MPI_Allreduce(&entered, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      waited += last - entered;
    } else if (strcmp(which, "chain") == 0) {
      if (rank == 0) {
        example_busy_wait(60e-3);
        SEND(kSmall, 1);
      } else if (rank == 1) {
        example_busy_wait(5e-3);
        RECEIVE(kSmall, 0); /* waits for rank 0's computation */
        SEND(kSmall, 2);
      } else {
        example_busy_wait(5e-3);
        RECEIVE(kSmall, 1); /* waits because rank 1 waited */
      }
    } else {
      if (rank == 0) {
        SEND(kLarge, 1);
        SEND(kSmall, 2);
      } else if (rank == 1) {
        MPI_Wait(&large, MPI_STATUS_IGNORE);
      } else {
        RECEIVE(kSmall, 0); /* waits for rank 0's transfer */
      }
    }
  }
  double all[3] = {0, 0, 0};
  MPI_Gather(&waited, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf("{\"case\": \"%s\", \"steps\": %d, \"wait_s\": [%.9f, %.9f, %.9f]}\n", which, kSteps,
           all[0], all[1], all[2]);
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
