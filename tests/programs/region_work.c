/* Code regions of different balance, nested (docs/regions.md). In each of 24
 * iterations, inside region "solve" (mpidle.h's mpidle_region_begin/end):
 *   "balanced": every rank computes 2 ms, then all meet in an MPI_Allreduce;
 *   "skewed", opened and closed with IPM's MPI_Pcontrol(1/-1, "skewed") (a region
 *   only with MPIDLE_PCONTROL=regions): rank r computes (1 + r) ms, then the same.
 * Each rank measures, per region, its time inside (begin to end) and its time in
 * MPI calls there, so its useful time is the difference. --json prints each region's
 * POP metrics as the program observed them (docs/profile-format.md, "efficiency"):
 *   load_balance = mean(useful) / max(useful), communication = max(useful) /
 *   max(time inside), parallel = mean(useful) / max(time inside). */
#include <mpi.h>
#include <mpidle.h>
#include <stdio.h>

#include "example_support.h"

enum { kIterations = 24, kRegions = 3 };
static const char* const kPaths[kRegions] = {"solve", "solve/balanced", "solve/skewed"};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double inside[kRegions] = {0}, in_mpi[kRegions] = {0};
  double x = rank, sum = 0;
  for (int i = 0; i < kIterations; ++i) {
    const double solve = example_now();
    mpidle_region_begin("solve");

    const double balanced = example_now();
    mpidle_region_begin("balanced");
    example_busy_wait(2e-3);
    double t = example_now();
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    in_mpi[1] += example_now() - t;
    mpidle_region_end("balanced");
    inside[1] += example_now() - balanced;

    const double skewed = example_now();
    MPI_Pcontrol(1, "skewed");
    example_busy_wait(1e-3 * (1 + rank));
    t = example_now();
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    in_mpi[2] += example_now() - t;
    MPI_Pcontrol(-1, "skewed");
    inside[2] += example_now() - skewed;

    mpidle_region_end("solve");
    inside[0] += example_now() - solve;
  }
  in_mpi[0] = in_mpi[1] + in_mpi[2];
  double mine[3 * kRegions], sums[3 * kRegions], maxima[3 * kRegions];
  for (int r = 0; r < kRegions; ++r) {
    mine[3 * r] = mine[3 * r + 1] = inside[r] - in_mpi[r];
    mine[3 * r + 2] = inside[r];
  }
  MPI_Reduce(mine, sums, 3 * kRegions, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, maxima, 3 * kRegions, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf("{\"ranks\": %d", size);
    for (int r = 0; r < kRegions; ++r) {
      const double mean = sums[3 * r] / size, max_useful = maxima[3 * r + 1];
      const double runtime = maxima[3 * r + 2];
      printf(", \"%s\": {\"load_balance\": %.6f, \"communication\": %.6f, \"parallel\": %.6f}",
             kPaths[r], mean / max_useful, max_useful / runtime, mean / runtime);
    }
    printf("}\n");
  }
  MPI_Finalize();
  return 0;
}
