/* Known, unequal work: in each of 40 iterations rank r computes (1 + r) ms, then all
 * ranks meet in an MPI_Allreduce, and every 8 iterations exchange 256 KiB with their
 * neighbours. With --transfer the work is equal (1 ms each) and each of 200
 * iterations exchanges 4 MiB instead: no imbalance, and the transfers take much of
 * the run (0.5 s: at 0.1 s, a millisecond of the run's ends or of the scheduler
 * moved the efficiencies by 0.014, and the mpidle analysis read the communication
 * efficiency 0.003 to 0.13 above the program's own in 14 runs here).
 * Each rank measures its own span (from the end of MPI_Init to its last MPI call
 * before the report) and its time inside MPI (around each call), so its
 * useful time is span - MPI. --json prints POP's metrics as the program observed
 * them (docs/profile-format.md, "efficiency"):
 *   load_balance = mean(useful) / max(useful), communication = max(useful) /
 *   max(span), parallel = their product. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kIterations = 40, kTransferIterations = 200, kDoubles = 32768, kTransferDoubles = 524288 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double start = example_now();
  double in_mpi = 0, t = 0;
  int rank = 0, size = 1;
  t = example_now();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  in_mpi += example_now() - t;
  const int transfer = example_has_flag(argc, argv, "--transfer");
  const int doubles = transfer ? kTransferDoubles : kDoubles;
  double* out = calloc(doubles, sizeof(double));
  double* in = calloc(doubles, sizeof(double));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double x = rank, sum = 0;
  const int iterations = transfer ? kTransferIterations : kIterations;
  for (int i = 0; i < iterations; ++i) {
    example_busy_wait(1e-3 * (transfer ? 1 : 1 + rank));
    t = example_now();
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (transfer || i % 8 == 7) {
      MPI_Sendrecv(out, doubles, MPI_DOUBLE, right, 0, in, doubles, MPI_DOUBLE, left, 0,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    in_mpi += example_now() - t;
  }
  const double span = example_now() - start;
  const double useful = span - in_mpi;
  double mine[3] = {useful, useful, span}, sums[3], maxima[3];
  MPI_Reduce(mine, sums, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, maxima, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    const double mean = sums[0] / size, max_useful = maxima[1], runtime = maxima[2];
    const double load_balance = mean / max_useful, communication = max_useful / runtime;
    printf(
        "{\"ranks\": %d, \"load_balance\": %.6f, \"communication\": %.6f, "
        "\"parallel\": %.6f, \"runtime_s\": %.6f}\n",
        size, load_balance, communication, load_balance * communication, runtime);
  }
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
