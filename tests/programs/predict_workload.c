/* A workload for the prediction tests: per iteration a busy compute burst, then a
 * Sendrecv ring exchange (or, with --irecv-send, each rank posting an Irecv from the
 * rank before, then a blocking Send to the rank after and a Wait, as NPB's CG
 * exchanges; or only an Allreduce, with --allreduce-only; or, with
 * --reply-bytes R, a one-way stream: each even rank sends --bytes to the next rank
 * and receives R bytes back, the data flowing one way as a pipeline's does; or, with
 * --incast, every other rank sending --bytes to rank 0 at once, which posts an Irecv
 * from each and waits for all, as a gather of halos does), and an
 * Allreduce every --allreduce-every iterations. --compute-scale F multiplies every
 * burst (a slower or faster CPU, for real). Each rank prints when it started and
 * ended its work on the node's monotonic clock, and how much of its bursts' wall
 * time it did not run on a CPU (other load on the node took the core):
 *   rank R start S end E stolen T
 * so that the test knows the run's wall time, and whether the node disturbed it,
 * from the program itself. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "example_support.h"

static double number(int argc, char** argv, const char* name, double fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], name) == 0) return atof(argv[i + 1]);
  return fallback;
}

static double thread_cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double start = example_now();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = (int)number(argc, argv, "--iterations", 2000);
  const double compute_s = number(argc, argv, "--compute-us", 200) * 1e-6;
  const double scale = number(argc, argv, "--compute-scale", 1);
  const int bytes = (int)number(argc, argv, "--bytes", 1024);
  const int every = (int)number(argc, argv, "--allreduce-every", 10);
  const int allreduce_only = example_has_flag(argc, argv, "--allreduce-only");
  const int irecv_send = example_has_flag(argc, argv, "--irecv-send");
  const int incast = example_has_flag(argc, argv, "--incast");
  int reply = (int)number(argc, argv, "--reply-bytes", -1);
  if (reply > bytes) reply = bytes; /* the buffers hold --bytes */
  char* send = calloc((size_t)bytes + 8, 1);
  char* recv = calloc((size_t)bytes + 8, 1);
  char* gathered = incast && rank == 0 ? calloc((size_t)size, (size_t)bytes + 8) : NULL;
  MPI_Request* requests = calloc((size_t)size, sizeof(MPI_Request));
  double* sum_in = calloc((size_t)bytes / 8 + 1, sizeof(double));
  double* sum_out = calloc((size_t)bytes / 8 + 1, sizeof(double));
  const int count = bytes / 8 > 0 ? bytes / 8 : 1;
  /* A fixed imbalance: rank r computes 10 r % longer. */
  const double burst = compute_s * scale * (1.0 + 0.1 * rank);
  double stolen = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < iterations; ++i) {
    const double wall_before = example_now(), cpu_before = thread_cpu_now();
    example_busy_wait(burst);
    stolen += (example_now() - wall_before) - (thread_cpu_now() - cpu_before);
    if (allreduce_only) {
      MPI_Allreduce(sum_in, sum_out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      continue;
    }
    if (incast) {
      if (rank == 0) {
        for (int r = 1; r < size; ++r)
          MPI_Irecv(gathered + (size_t)(r - 1) * ((size_t)bytes + 8), bytes, MPI_BYTE, r, 0,
                    MPI_COMM_WORLD, &requests[r - 1]);
        MPI_Waitall(size - 1, requests, MPI_STATUSES_IGNORE);
      } else {
        MPI_Send(send, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    } else if (reply >= 0) {
      if (rank % 2 == 0 && rank + 1 < size) {
        MPI_Send(send, bytes, MPI_BYTE, rank + 1, 0, MPI_COMM_WORLD);
        MPI_Recv(recv, reply, MPI_BYTE, rank + 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank % 2 == 1) {
        MPI_Recv(recv, bytes, MPI_BYTE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(send, reply, MPI_BYTE, rank - 1, 1, MPI_COMM_WORLD);
      }
    } else if (irecv_send) {
      MPI_Request request;
      MPI_Irecv(recv, bytes, MPI_BYTE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &request);
      MPI_Send(send, bytes, MPI_BYTE, (rank + 1) % size, 0, MPI_COMM_WORLD);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else {
      MPI_Sendrecv(send, bytes, MPI_BYTE, (rank + 1) % size, 0, recv, bytes, MPI_BYTE,
                   (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (every > 0 && i % every == every - 1)
      MPI_Allreduce(sum_in, sum_out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double end = example_now();
  printf("rank %d start %.9f end %.9f stolen %.9f\n", rank, start, end, stolen);
  free(send);
  free(recv);
  free(gathered);
  free(requests);
  free(sum_in);
  free(sum_out);
  MPI_Finalize();
  return 0;
}
