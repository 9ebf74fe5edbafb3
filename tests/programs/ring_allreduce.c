/* A ring exchange and an Allreduce per iteration, at any number of ranks: the
 * program of the scale tests and of the scale benchmark. Rank r sends 64 doubles
 * to r+1 and receives from r-1 (MPI_Sendrecv), then joins an MPI_Allreduce of one
 * double on MPI_COMM_WORLD. Usage: ring_allreduce [ITERATIONS] [--json]
 * --json: rank 0 prints {"ranks", "iterations"}: every rank made exactly
 * ITERATIONS Sendrecv and ITERATIONS + 1 Allreduce calls (one to check the sum). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 && argv[1][0] != '-' ? atoi(argv[1]) : 100;
  double out[64] = {0}, in[64] = {0}, sum = 0;
  for (int i = 0; i < iterations; ++i) {
    out[0] = rank + i;
    MPI_Sendrecv(out, 64, MPI_DOUBLE, (rank + 1) % size, 7, in, 64, MPI_DOUBLE,
                 (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double mine = in[0], total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum += total;
  }
  /* Every rank received rank-1+i: the sum over ranks and iterations is known. */
  double all = 0;
  MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double expected = (double)iterations * size * (size - 1) / 2.0 +
                          (double)size * iterations * (iterations - 1) / 2.0;
  if (all != expected)
    fprintf(stderr, "ring_allreduce: wrong sum %.0f, expected %.0f\n", all, expected);
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf("{\"ranks\": %d, \"iterations\": %d}\n", size, iterations);
  }
  MPI_Finalize();
  return all == expected ? 0 : 1;
}
