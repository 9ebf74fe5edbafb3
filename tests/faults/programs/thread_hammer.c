/* MPI_THREAD_MULTIPLE: kThreads threads per rank, each on its own duplicate of
 * MPI_COMM_WORLD, exchange with the same thread of the partner rank kRounds
 * times (Irecv, half of them from MPI_ANY_SOURCE, + Isend + Waitall) and join an
 * Allreduce each round. Prints the counts every rank made, as JSON. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 4, kRounds = 300 };

static int g_rank, g_size;
static MPI_Comm g_comms[kThreads];

static void* hammer(void* arg) {
  const long t = (long)arg;
  const int partner = g_rank ^ 1;
  MPI_Comm comm = g_comms[t];
  double out = (double)t, in = 0, sum = 0;
  for (int i = 0; i < kRounds; ++i) {
    MPI_Request requests[2];
    MPI_Irecv(&in, 1, MPI_DOUBLE, i % 2 ? MPI_ANY_SOURCE : partner, 7, comm, &requests[0]);
    MPI_Isend(&out, 1, MPI_DOUBLE, partner, 7, comm, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    MPI_Allreduce(&in, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (provided < MPI_THREAD_MULTIPLE || g_size % 2 != 0) {
    if (g_rank == 0)
      printf("{\"skipped\": \"needs MPI_THREAD_MULTIPLE and an even rank count\"}\n");
    MPI_Finalize();
    return 0;
  }
  for (int t = 0; t < kThreads; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &g_comms[t]);
  pthread_t threads[kThreads];
  for (long t = 0; t < kThreads; ++t) pthread_create(&threads[t], NULL, hammer, (void*)t);
  for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < kThreads; ++t) MPI_Comm_free(&g_comms[t]);
  if (g_rank == 0)
    printf(
        "{\"per_rank\": {\"MPI_Irecv\": %d, \"MPI_Isend\": %d, \"MPI_Waitall\": %d, "
        "\"MPI_Allreduce\": %d, \"MPI_Comm_dup\": %d}}\n",
        kThreads * kRounds, kThreads * kRounds, kThreads * kRounds, kThreads * kRounds, kThreads);
  MPI_Finalize();
  return 0;
}
