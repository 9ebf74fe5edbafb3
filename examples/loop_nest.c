/* Loop nest: a timestep loop as a tracer should see it. Each of N outer
 * iterations does M ring exchanges (MPI_Sendrecv to the right neighbour, from the
 * left one), each after a little computation, then an MPI_Allreduce. Every rank
 * runs the same nest, so a trace of it compresses to
 *   ((CPU+Sendrecv)[M] + CPU+Allreduce)[N]
 * on every rank. --outer N and --inner M set the counts (default 40 and 6);
 * --json prints them as the truth. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_support.h"

static int int_option(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], name) == 0) return atoi(argv[i + 1]);
  }
  return fallback;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int outer = int_option(argc, argv, "--outer", 40);
  const int inner = int_option(argc, argv, "--inner", 6);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  double halo_out[16] = {0}, halo_in[16] = {0}, local = rank, global = 0;
  for (int step = 0; step < outer; ++step) {
    for (int exchange = 0; exchange < inner; ++exchange) {
      example_busy_wait(20e-6);
      halo_out[0] = step * inner + exchange;
      MPI_Sendrecv(halo_out, 16, MPI_DOUBLE, right, exchange, halo_in, 16, MPI_DOUBLE, left,
                   exchange, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    example_busy_wait(50e-6);
    local += halo_in[0];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }

  if (rank == 0) {
    if (example_has_flag(argc, argv, "--json")) {
      printf("{\"example\": \"loop_nest\", \"outer_iterations\": %d, \"inner_exchanges\": %d}\n",
             outer, inner);
    } else {
      printf("loop_nest: %d steps of %d exchanges and an Allreduce on %d ranks (sum %g)\n", outer,
             inner, size, global);
    }
  }
  MPI_Finalize();
  return 0;
}
