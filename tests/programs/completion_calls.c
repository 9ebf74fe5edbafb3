/* The completion family with counts the program knows itself: how many MPI_Test,
 * MPI_Testall, MPI_Iprobe, MPI_Testany, MPI_Testsome and MPI_Improbe calls found
 * nothing (it counts the failed ones), and how many calls of each kind it made.
 * Rank 0 sends late; rank 1 polls, with wildcard sources and ignored statuses
 * where the sender is known only from a status mpidle must supply itself. */
#include <mpi.h>
#include <stdio.h>

#include "example_support.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long failed_tests = 0, tests = 0, failed_testalls = 0, testalls = 0, failed_iprobes = 0,
       iprobes = 0, failed_testanys = 0, testanys = 0, failed_testsomes = 0, testsomes = 0,
       failed_improbes = 0, improbes = 0;
  double a[16] = {0}, b[16] = {0};
  MPI_Request r[2];
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    example_busy_wait(2e-3);
    MPI_Send(a, 16, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* for the Test loop */
    MPI_Send(a, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);  /* Waitany, then Wait */
    MPI_Send(b, 8, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
    example_busy_wait(2e-3);
    MPI_Send(a, 2, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD); /* for the Testall loop */
    MPI_Send(b, 2, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
    example_busy_wait(2e-3);
    MPI_Send(a, 1, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD); /* for the Iprobe loop */
    example_busy_wait(2e-3);
    MPI_Send(a, 5, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD); /* for the Testany loop */
    example_busy_wait(2e-3);
    MPI_Send(a, 3, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD); /* for the Testsome loop */
    example_busy_wait(2e-3);
    MPI_Send(a, 7, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD); /* for the Improbe loop */
    MPI_Request persistent;                            /* persistent send, 3 rounds */
    MPI_Send_init(b, 3, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, &persistent);
    for (int i = 0; i < 3; ++i) {
      MPI_Start(&persistent);
      MPI_Wait(&persistent, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&persistent);
  } else if (rank == 1) {
    int flag = 0;
    MPI_Irecv(a, 16, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &r[0]);
    while (!flag) {
      MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
      ++tests;
      failed_tests += !flag;
    }
    int index = -1;
    MPI_Irecv(a, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(b, 8, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &r[1]);
    MPI_Waitany(2, r, &index, MPI_STATUS_IGNORE);
    MPI_Wait(&r[1 - index], MPI_STATUS_IGNORE);
    MPI_Irecv(a, 2, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(b, 2, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &r[1]);
    for (flag = 0; !flag;) {
      MPI_Status statuses[2];
      MPI_Testall(2, r, &flag, statuses);
      ++testalls;
      failed_testalls += !flag;
    }
    for (flag = 0; !flag;) {
      MPI_Iprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      ++iprobes;
      failed_iprobes += !flag;
    }
    MPI_Recv(a, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* Testany over a wildcard receive of 5 doubles and one that never completes
     * here (it is cancelled below). */
    MPI_Irecv(a, 5, MPI_DOUBLE, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(b, 1, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD, &r[1]);
    for (flag = 0; !flag;) {
      MPI_Testany(2, r, &index, &flag, MPI_STATUS_IGNORE);
      ++testanys;
      failed_testanys += !flag;
    }
    MPI_Cancel(&r[1]);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Irecv(a, 3, MPI_DOUBLE, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &r[0]);
    for (int done = 0; done == 0;) {
      int indices[1];
      MPI_Testsome(1, r, &done, indices, MPI_STATUSES_IGNORE);
      ++testsomes;
      failed_testsomes += done == 0;
    }
    MPI_Message message = MPI_MESSAGE_NULL;
    for (flag = 0; !flag;) {
      MPI_Improbe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &flag, &message, MPI_STATUS_IGNORE);
      ++improbes;
      failed_improbes += !flag;
    }
    MPI_Mrecv(a, 7, MPI_DOUBLE, &message, MPI_STATUS_IGNORE);
    MPI_Request persistent;
    MPI_Recv_init(b, 3, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &persistent);
    for (int i = 0; i < 3; ++i) {
      MPI_Start(&persistent);
      MPI_Wait(&persistent, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&persistent);
  }
  /* Rank 1's counts travel to rank 0, which prints them. */
  long counts[12] = {tests,     failed_tests,     testalls, failed_testalls,
                     iprobes,   failed_iprobes,   testanys, failed_testanys,
                     testsomes, failed_testsomes, improbes, failed_improbes};
  long totals[12];
  MPI_Reduce(counts, totals, 12, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf(
        "{\"tests\": %ld, \"failed_tests\": %ld, \"testalls\": %ld, \"failed_testalls\": %ld, "
        "\"iprobes\": %ld, \"failed_iprobes\": %ld, \"testanys\": %ld, \"failed_testanys\": "
        "%ld, \"testsomes\": %ld, \"failed_testsomes\": %ld, \"improbes\": %ld, "
        "\"failed_improbes\": %ld}\n",
        totals[0], totals[1], totals[2], totals[3], totals[4], totals[5], totals[6], totals[7],
        totals[8], totals[9], totals[10], totals[11]);
  }
  MPI_Finalize();
  return 0;
}
