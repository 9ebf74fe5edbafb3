/* One completion call with 1,000 requests of wildcard receives: rank 1 posts
 * 1,000 MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) and completes them in one
 * MPI_Waitall with MPI_STATUSES_IGNORE; rank 0 sends 1,000 messages with tags
 * 0..999 of (i % 7 + 1) doubles. A second round completes 300 with MPI_Waitsome.
 * The truth is the program's own: messages sent and received, and the bytes
 * received (each message's size is known from its tag). --json prints them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_support.h"

enum { kMessages = 1000, kSome = 300 };

static int doubles_of(int tag) {
  return tag % 7 + 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * kMessages);
  double* data = calloc((size_t)kMessages * 8, sizeof(double));
  long long received_bytes = 0;
  int received = 0;
  if (size >= 2 && rank == 0) {
    for (int i = 0; i < kMessages; ++i) {
      MPI_Isend(data + 8 * i, doubles_of(i), MPI_DOUBLE, 1, i, MPI_COMM_WORLD, &requests[i]);
    }
    MPI_Waitall(kMessages, requests, MPI_STATUSES_IGNORE);
    for (int i = 0; i < kSome; ++i) {
      MPI_Send(data + 8 * i, doubles_of(i), MPI_DOUBLE, 1, i, MPI_COMM_WORLD);
    }
  } else if (size >= 2 && rank == 1) {
    for (int i = 0; i < kMessages; ++i) {
      MPI_Irecv(data + 8 * i, 8, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                &requests[i]);
    }
    MPI_Waitall(kMessages, requests, MPI_STATUSES_IGNORE);
    received += kMessages;
    for (int i = 0; i < kMessages; ++i) received_bytes += 8 * doubles_of(i);
    for (int i = 0; i < kSome; ++i) {
      MPI_Irecv(data + 8 * i, 8, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                &requests[i]);
    }
    int* indices = malloc(sizeof(int) * kSome);
    for (int done = 0; done < kSome;) {
      int n = 0;
      MPI_Waitsome(kSome, requests, &n, indices, MPI_STATUSES_IGNORE);
      done += n;
    }
    free(indices);
    received += kSome;
  }
  if (rank == 1) {
    long long totals[2] = {received, received_bytes};
    MPI_Send(totals, 2, MPI_LONG_LONG, 0, 7777, MPI_COMM_WORLD);
  }
  if (rank == 0 && size >= 2) {
    long long totals[2];
    MPI_Recv(totals, 2, MPI_LONG_LONG, 1, 7777, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (example_has_flag(argc, argv, "--json")) {
      printf("{\"messages\": %lld, \"waitall_received_bytes\": %lld, \"waitall_requests\": %d}\n",
             totals[0] + 1, totals[1], kMessages);
    }
  }
  free(requests);
  free(data);
  MPI_Finalize();
  return 0;
}
