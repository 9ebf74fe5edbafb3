/* The instructions one iteration of a call pattern costs, for callgrind: the same
 * binary runs bare, profiled and traced, and callgrind counts only inside
 * measured_step() (--toggle-collect=measured_step), so set-up, the per-iteration
 * preparation and MPI_Init/MPI_Finalize are not counted. Differencing two
 * iteration counts leaves the cost of one iteration (bench/instructions.py).
 *   call_instructions ROW N
 * Rows (all on one rank but allreduce, which needs two):
 *   iprobe       MPI_Iprobe with nothing pending
 *   sendrecv     MPI_Sendrecv of 8 bytes to self
 *   triplet      MPI_Irecv + MPI_Isend + MPI_Waitall of 8 bytes to self
 *   testany      MPI_Testany over 4 pending receives that never match
 *   allreduce    MPI_Allreduce of 8 bytes (2 ranks)
 *   wait_done    MPI_Wait on a receive that has already completed
 * The Allreduce spins on its partner inside MPI, so only its part in libmpidle has
 * an exact count. Rank 0 prints its process id, so the caller finds its callgrind
 * file. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum Row { kIprobe, kSendrecv, kTriplet, kTestany, kAllreduce, kWaitDone, kRows };
static const char* const kRowNames[kRows] = {"iprobe",  "sendrecv",  "triplet",
                                             "testany", "allreduce", "wait_done"};

enum { kPending = 4, kTag = 77, kNeverTag = 78 };

static double g_out = 1, g_in = 0;
static MPI_Request g_pending[kPending];
static MPI_Request g_done = MPI_REQUEST_NULL;
static int g_rank = 0;
static int g_world_rank = 0;

/* Unmeasured: what one iteration needs before its measured step. */
static void prepare(enum Row row) {
  if (row == kWaitDone) {
    MPI_Request send;
    MPI_Irecv(&g_in, 1, MPI_DOUBLE, g_rank, kTag, MPI_COMM_SELF, &g_done);
    MPI_Isend(&g_out, 1, MPI_DOUBLE, g_rank, kTag, MPI_COMM_SELF, &send);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    /* One more pass of MPI's progress engine: the receive has completed inside
     * MPI before measured_step waits for it. */
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, kNeverTag, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
  }
}

__attribute__((noinline)) void measured_step(enum Row row) {
  int flag = 0, index = 0;
  MPI_Status status;
  MPI_Request pair[2];
  switch (row) {
    case kIprobe:
      MPI_Iprobe(MPI_ANY_SOURCE, kNeverTag, MPI_COMM_WORLD, &flag, &status);
      break;
    case kSendrecv:
      MPI_Sendrecv(&g_out, 1, MPI_DOUBLE, g_rank, kTag, &g_in, 1, MPI_DOUBLE, g_rank, kTag,
                   MPI_COMM_SELF, &status);
      break;
    case kTriplet:
      MPI_Irecv(&g_in, 1, MPI_DOUBLE, g_rank, kTag, MPI_COMM_SELF, &pair[0]);
      MPI_Isend(&g_out, 1, MPI_DOUBLE, g_rank, kTag, MPI_COMM_SELF, &pair[1]);
      MPI_Waitall(2, pair, MPI_STATUSES_IGNORE);
      break;
    case kTestany:
      MPI_Testany(kPending, g_pending, &index, &flag, &status);
      break;
    case kAllreduce:
      MPI_Allreduce(&g_out, &g_in, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case kWaitDone:
      MPI_Wait(&g_done, &status);
      break;
    case kRows:
      break;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_SELF, &g_rank);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  const char* name = argc > 1 ? argv[1] : "iprobe";
  const long n = argc > 2 ? atol(argv[2]) : 1000;
  enum Row row = kRows;
  for (int r = 0; r < kRows; ++r) {
    if (strcmp(name, kRowNames[r]) == 0) row = (enum Row)r;
  }
  if (row == kRows) {
    if (g_world_rank == 0) fprintf(stderr, "call_instructions: unknown row '%s'\n", name);
    MPI_Finalize();
    return 2;
  }
  if (row == kTestany) {
    for (int i = 0; i < kPending; ++i) {
      MPI_Irecv(&g_in, 1, MPI_DOUBLE, g_rank, kNeverTag, MPI_COMM_SELF, &g_pending[i]);
    }
  }
  for (long i = 0; i < n; ++i) {
    prepare(row);
    measured_step(row);
  }
  if (row == kTestany) {
    for (int i = 0; i < kPending; ++i) {
      MPI_Cancel(&g_pending[i]);
      MPI_Wait(&g_pending[i], MPI_STATUS_IGNORE);
    }
  }
  if (g_world_rank == 0) printf("%ld\n", (long)getpid());
  MPI_Finalize();
  return 0;
}
