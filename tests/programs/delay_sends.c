/* Test only, never installed: a preload library that makes the network slower by
 * a known amount. Every point-to-point send (MPI_Send, MPI_Isend, MPI_Sendrecv) is
 * held for MPIDLE_TEST_DELAY_US microseconds, spinning, before it goes to MPI. It
 * interposes the PMPI_ entry points, so that it also works under libmpidle (whose
 * wrappers call them): preload it after libmpidle. The prediction tests run a
 * program under it for real and compare with what mpidle predicts from an
 * undelayed trace with the latency raised by as much. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>

#include "example_support.h"

static void hold(void) {
  static double d = -1;
  if (d < 0) {
    const char* v = getenv("MPIDLE_TEST_DELAY_US");
    d = v ? atof(v) * 1e-6 : 0;
  }
  example_busy_wait(d);
}

typedef int (*send_fn)(const void*, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*isend_fn)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
typedef int (*sendrecv_fn)(const void*, int, MPI_Datatype, int, int, void*, int, MPI_Datatype, int,
                           int, MPI_Comm, MPI_Status*);

int PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  static send_fn real = NULL;
  if (!real) real = (send_fn)dlsym(RTLD_NEXT, "PMPI_Send");
  hold();
  return real(buf, count, type, dest, tag, comm);
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int PMPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  static isend_fn real = NULL;
  if (!real) real = (isend_fn)dlsym(RTLD_NEXT, "PMPI_Isend");
  hold();
  return real(buf, count, type, dest, tag, comm, request);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status* status) {
  static sendrecv_fn real = NULL;
  if (!real) real = (sendrecv_fn)dlsym(RTLD_NEXT, "PMPI_Sendrecv");
  hold();
  return real(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
              recvtag, comm, status);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                       source, recvtag, comm, status);
}
