/* Received bytes and the cancelled flag as profiler/wrappers/status_count.h reads them from
 * MPI_Status's fields, against the portable calls (MPI_Get_elements_x in MPI_BYTE,
 * MPI_Test_cancelled), on statuses of real receives of every datatype the tests
 * use, of probes, of an empty request, of a cancelled receive, and of statuses set
 * by MPI_Status_set_elements_x beyond 32 bits. Rank 1 prints one line:
 *   field <name|none> compared <n> mismatches <m>
 * and every mismatch before it. 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/wrappers/status_count.h"

static int compared = 0, mismatches = 0;

static void compare(const char* what, const MPI_Status* st) {
  MPI_Count count = 0;
  int cancelled = 0;
  MPI_Get_elements_x(st, MPI_BYTE, &count);
  MPI_Test_cancelled(st, &cancelled);
  ++compared;
#ifdef MPIDLE_STATUS_COUNT_FIELD
  const long long direct = (long long)mpidle_status_count_bytes(st);
  const int direct_cancelled = mpidle_status_cancelled(st);
  if (direct != (long long)count || direct_cancelled != (cancelled != 0)) {
    ++mismatches;
    printf("mismatch %s: fields %lld bytes, cancelled %d; calls %lld bytes, cancelled %d\n", what,
           direct, direct_cancelled, (long long)count, cancelled);
  }
#else
  (void)what;
#endif
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Datatype vector, pair, contiguous;
  MPI_Type_vector(5, 2, 4, MPI_DOUBLE, &vector);
  MPI_Type_commit(&vector);
  int lengths[2] = {1, 3};
  MPI_Aint displacements[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_FLOAT};
  MPI_Type_create_struct(2, lengths, displacements, types, &pair);
  MPI_Type_commit(&pair);
  MPI_Type_contiguous(3, MPI_LONG_LONG, &contiguous);
  MPI_Type_commit(&contiguous);
  struct {
    MPI_Datatype type;
    int count;
    const char* name;
  } messages[] = {{MPI_BYTE, 0, "0 bytes"},           {MPI_BYTE, 1, "1 byte"},
                  {MPI_CHAR, 100, "100 chars"},       {MPI_INT, 7, "7 ints"},
                  {MPI_DOUBLE, 1000, "1000 doubles"}, {MPI_LONG_DOUBLE, 3, "3 long doubles"},
                  {vector, 4, "4 vectors"},           {pair, 9, "9 structs"},
                  {contiguous, 11, "11 contiguous"},  {MPI_BYTE, 5 << 20, "5 MiB"}};
  const int n = (int)(sizeof messages / sizeof messages[0]);
  char* buffer = calloc(64u << 20, 1);
  for (int i = 0; i < n; ++i) {
    if (rank == 0) {
      MPI_Send(buffer, messages[i].count, messages[i].type, 1, i, MPI_COMM_WORLD);
      MPI_Send(buffer, messages[i].count, messages[i].type, 1, 100 + i, MPI_COMM_WORLD);
    } else if (rank == 1) {
      MPI_Status st;
      MPI_Probe(0, i, MPI_COMM_WORLD, &st);
      compare(messages[i].name, &st);
      MPI_Recv(buffer, messages[i].count + 8, messages[i].type, 0, i, MPI_COMM_WORLD, &st);
      compare(messages[i].name, &st);
      MPI_Request request;
      MPI_Irecv(buffer, messages[i].count + 8, messages[i].type, 0, 100 + i, MPI_COMM_WORLD,
                &request);
      MPI_Wait(&request, &st);
      compare(messages[i].name, &st);
    }
  }
  if (rank == 1) {
    MPI_Status st;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Wait(&request, &st);
    compare("an empty request", &st);
    MPI_Irecv(buffer, 4, MPI_INT, 0, 999, MPI_COMM_WORLD, &request);
    MPI_Cancel(&request);
    MPI_Wait(&request, &st);
    compare("a cancelled receive", &st);
    const MPI_Count set[] = {0, 12345, ((MPI_Count)1 << 32) + 17, ((MPI_Count)5 << 30) + 3};
    for (int i = 0; i < 4; ++i) {
      memset(&st, 0, sizeof st);
      MPI_Status_set_elements_x(&st, MPI_BYTE, set[i]);
      MPI_Status_set_cancelled(&st, i % 2);
      compare("a status set by MPI_Status_set_elements_x", &st);
    }
#ifdef MPIDLE_STATUS_COUNT_FIELD
    printf("field %s compared %d mismatches %d\n", MPIDLE_STATUS_COUNT_FIELD, compared, mismatches);
#else
    printf("field none compared %d mismatches %d\n", compared, mismatches);
#endif
  }
  free(buffer);
  MPI_Type_free(&vector);
  MPI_Type_free(&pair);
  MPI_Type_free(&contiguous);
  MPI_Finalize();
  return 0;
}
