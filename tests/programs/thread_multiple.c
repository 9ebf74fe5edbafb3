/* MPI_THREAD_MULTIPLE: kThreads threads per rank exchange kRounds messages with
 * the same thread of the partner rank (tag = thread). Prints the expected counts. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 3, kRounds = 200 };

static int g_rank, g_size;

static void* exchange(void* arg) {
  const int tag = (int)(long)arg;
  const int partner = g_rank ^ 1;
  double out = tag, in = 0;
  for (int i = 0; i < kRounds && partner < g_size; ++i) {
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, partner, tag, &in, 1, MPI_DOUBLE, partner, tag,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) printf("{\"skipped\": \"no MPI_THREAD_MULTIPLE\"}\n");
    MPI_Finalize();
    return 0;
  }
  pthread_t threads[kThreads];
  for (long t = 0; t < kThreads; ++t) pthread_create(&threads[t], NULL, exchange, (void*)t);
  for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 0) printf("{\"sendrecv_per_rank\": %d}\n", kThreads * kRounds);
  MPI_Finalize();
  return 0;
}
