/* A helper defined in a header, called from header_helper.c: its MPI call's
   callsite must name this file and line (DWARF 5 line tables name a header's
   files by an index that some symbolizers read off by one). */
#ifndef MPIDLE_HEADER_HELPER_H
#define MPIDLE_HEADER_HELPER_H
#include <mpi.h>

/* The volatile store after the call keeps -O2 from making it a tail call (whose
   return address would be the caller's). */
__attribute__((noinline)) static void header_helper_barrier(MPI_Comm comm) {
  volatile int rc = MPI_Barrier(comm); /* HEADER_HELPER_CALL */
  (void)rc;
}

#endif
