/* One-sided, MPI-IO and a cancelled receive: rank 0 puts kPut doubles into rank
 * 1's window, every rank writes kWrite doubles to a file (argv[1]), and every rank
 * cancels a wildcard receive that no message matches. --json prints the bytes of
 * each and the receives cancelled. */
#include <mpi.h>
#include <stdio.h>

#include "example_support.h"

enum { kPut = 512, kWrite = 1024 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static double buf[kWrite];
  MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  if (rank == 0 && size > 1) MPI_Put(buf, kPut, MPI_DOUBLE, 1, 0, kPut, MPI_DOUBLE, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  MPI_File fh;
  const char* path = argc > 1 && argv[1][0] != '-' ? argv[1] : "rma_io_cancel.bin";
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at(fh, (MPI_Offset)rank * sizeof buf, buf, kWrite, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Request request;
  MPI_Status status;
  int cancelled = 0;
  MPI_Irecv(buf, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &request);
  MPI_Cancel(&request);
  MPI_Wait(&request, &status);
  MPI_Test_cancelled(&status, &cancelled);
  int all = 0;
  MPI_Reduce(&cancelled, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && example_has_flag(argc, argv, "--json")) {
    printf("{\"put_bytes\": %d, \"write_bytes\": %d, \"cancelled\": %d}\n",
           (int)(kPut * sizeof(double)), (int)(kWrite * sizeof(double)), all);
  }
  MPI_Finalize();
  return 0;
}
