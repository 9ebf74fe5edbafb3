/* Late sender: in each pair of ranks (2k, 2k+1) the sender busy-waits a known
 * delay before every MPI_Send; some delays are zero. The receiver posts MPI_Recv
 * at once, so it waits for the sender.
 * --json prints the truth: "scheduled_wait_s" is the sum of the delays, and
 * "receiver_wait_s" the waiting that really happened, from each send's and
 * receive's start time: the sum over messages of max(0, send start − receive start).
 * "completion_excess_s" is the time receives spent after their send had started
 * (microseconds per message on a quiet node; an OS or hypervisor interruption
 * shows up here, and a profiler counts it as wait).
 * "sender_busy_cpu_s" is the CPU time rank 0's busy waits got (less than their
 * delays when other load shares the cores).
 * --delay-scale X multiplies every delay by X (default 1), e.g. to compare two runs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_support.h"

enum { kIterations = 60 };

static double g_delay_scale = 1.0;

/* Delay before message i: a fixed pattern with zeros, so that the receiver also
 * sees receives that do not wait. */
static double delay_s(int i) {
  static const int pattern_us[12] = {0, 0, 0, 4000, 0, 10000, 0, 0, 24000, 6000, 0, 16000};
  return 1e-6 * pattern_us[i % 12] * g_delay_scale;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], "--delay-scale") == 0) g_delay_scale = atof(argv[i + 1]);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Startup skew is not part of the truth. */
  MPI_Barrier(MPI_COMM_WORLD);

  const int paired = rank < size - size % 2;
  const int sender = rank % 2 == 0;
  double payload = 0;
  double busy_cpu = 0;
  /* started[i], and for the receiver finished[i] = started[kIterations + i] */
  double started[2 * kIterations] = {0};
  for (int i = 0; paired && i < kIterations; ++i) {
    if (sender) {
      const double cpu_before = example_cpu_now();
      example_busy_wait(delay_s(i));
      busy_cpu += example_cpu_now() - cpu_before;
      payload = i;
      started[i] = example_now();
      MPI_Send(&payload, 1, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD);
    } else {
      started[i] = example_now();
      MPI_Recv(&payload, 1, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      started[kIterations + i] = example_now();
    }
  }
  double* all = example_gather_times(started, 2 * kIterations);

  if (rank == 0) {
    double scheduled = 0, happened = 0, excess = 0;
    for (int i = 0; i < kIterations; ++i) scheduled += delay_s(i);
    for (int pair = 0; pair < size / 2; ++pair) {
      const double* send = all + (size_t)(2 * pair) * 2 * kIterations;
      const double* recv = all + (size_t)(2 * pair + 1) * 2 * kIterations;
      for (int i = 0; i < kIterations; ++i) {
        const double ready = send[i] > recv[i] ? send[i] : recv[i];
        happened += ready - recv[i];
        excess += recv[kIterations + i] - ready;
      }
    }
    if (example_has_flag(argc, argv, "--json")) {
      printf(
          "{\"example\": \"late_sender\", \"delay_scale\": %g, \"pairs\": %d, "
          "\"messages_per_pair\": %d, "
          "\"scheduled_wait_s\": %.6f, \"receiver_wait_s\": %.6f, \"completion_excess_s\": %.6f, "
          "\"sender_busy_cpu_s\": %.6f}\n",
          g_delay_scale, size / 2, kIterations, scheduled, happened, excess > 0 ? excess : 0,
          busy_cpu);
    } else {
      printf("late_sender: %d pairs, %d messages each, receivers wait %.6f s in all\n", size / 2,
             kIterations, scheduled * (size / 2));
    }
    free(all);
  }
  MPI_Finalize();
  return 0;
}
