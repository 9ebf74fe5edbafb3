/* Polls as HPC Challenge's RandomAccess does, a different number of times each
 * time: in each of `ITERATIONS` steps every rank calls MPI_Iprobe (on a tag nobody
 * sends) a pseudo-random 1 to 40 times, its own sequence per rank, then exchanges
 * with the other rank by MPI_Sendrecv. Its loop summary cannot be a few loops: it
 * folds. Prints, with --json, what each rank called: "iprobes" and "sendrecvs" by
 * rank. */
#include <mpi.h>
#include <stdio.h>

#include "example_support.h"

enum { ITERATIONS = 4000, MAX_POLLS = 40 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int other = (rank + 1) % size;
  unsigned long state = 2463534242ul + 977ul * (unsigned long)rank;
  long counts[2] = {0, 0};  // iprobes, sendrecvs
  for (int i = 0; i < ITERATIONS; ++i) {
    state = state * 6364136223846793005ul + 1442695040888963407ul;
    const int polls = 1 + (int)((state >> 33) % MAX_POLLS);
    for (int p = 0; p < polls; ++p) {
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      ++counts[0];
    }
    int out = i, in = 0;
    MPI_Sendrecv(&out, 1, MPI_INT, other, 1, &in, 1, MPI_INT, other, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    ++counts[1];
  }
  long all[2 * 64] = {0};
  if (size <= 64) MPI_Gather(counts, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && size <= 64 && example_has_flag(argc, argv, "--json")) {
    printf("{\"iprobes\": [");
    for (int r = 0; r < size; ++r) printf("%s%ld", r ? ", " : "", all[2 * r]);
    printf("], \"sendrecvs\": [");
    for (int r = 0; r < size; ++r) printf("%s%ld", r ? ", " : "", all[2 * r + 1]);
    printf("]}\n");
  }
  return 0;
}
