/* Polls from one callsite in two regions by turns: every call must count in the
 * region it was made in, though most polls go untimed and a polling loop's key is
 * kept between calls (profiler/runtime/thread_state.hpp, record_untimed_poll). In each of
 * 10 rounds each rank polls, through one helper, MPI_Iprobe and MPI_Testany over two
 * receives that never match, 100 + round times in region "a", then 37 times in
 * region "b". Prints, with --json, the calls each region holds on one rank:
 * {"a": ..., "b": ...}; the receives are cancelled at the end, outside both. */
#include <mpi.h>
#include <mpidle.h>
#include <stdio.h>

#include "example_support.h"

enum { kRounds = 10, kNeverTag = 4242 };

static long poll(int times, MPI_Request* pending) {
  for (int i = 0; i < times; ++i) {
    int flag = 0, index = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, kNeverTag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Testany(2, pending, &index, &flag, MPI_STATUS_IGNORE);
  }
  return 2L * times;
}

/* Called through a volatile pointer, so that the compiler neither inlines nor
 * clones it: one callsite per MPI function, whichever region calls it. */
static long (*volatile poll_through)(int, MPI_Request*) = poll;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int buffers[2];
  MPI_Request pending[2];
  for (int i = 0; i < 2; ++i) {
    MPI_Irecv(&buffers[i], 1, MPI_INT, MPI_ANY_SOURCE, kNeverTag + 1, MPI_COMM_WORLD, &pending[i]);
  }
  long in_a = 0, in_b = 0;
  for (int round = 0; round < kRounds; ++round) {
    mpidle_region_begin("a");
    in_a += poll_through(100 + round, pending);
    mpidle_region_end("a");
    mpidle_region_begin("b");
    in_b += poll_through(37, pending);
    mpidle_region_end("b");
  }
  for (int i = 0; i < 2; ++i) {
    MPI_Cancel(&pending[i]);
    MPI_Wait(&pending[i], MPI_STATUS_IGNORE);
  }
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf("{\"a\": %ld, \"b\": %ld}\n", in_a, in_b);
  }
  MPI_Finalize();
  return 0;
}
