/* Creates and frees argv[1] communicators (MPI_Comm_split of MPI_COMM_WORLD,
 * one Allreduce on each), and prints on stderr how much heap the process held
 * more after the last cycle than after the first tenth:
 *   {"rank": R, "heap_growth_bytes": N}
 * Stdout gets one fixed line from rank 0. */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long cycles = argc > 1 ? atol(argv[1]) : 10000;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t heap_after_tenth = 0;
  int total = 0;
  for (long i = 0; i < cycles; ++i) {
    MPI_Comm part;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &part);
    int one = 1, members = 0;
    MPI_Allreduce(&one, &members, 1, MPI_INT, MPI_SUM, part);
    total += members;
    MPI_Comm_free(&part);
    if (i + 1 == cycles / 10) heap_after_tenth = mallinfo2().uordblks;
  }
  const size_t heap_now = mallinfo2().uordblks;
  fprintf(stderr, "{\"rank\": %d, \"heap_growth_bytes\": %lld}\n", rank,
          (long long)heap_now - (long long)heap_after_tenth);
  if (rank == 0) printf("%ld communicators, %d members summed\n", cycles, total);
  MPI_Finalize();
  return 0;
}
