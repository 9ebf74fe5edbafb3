/* A completed receive's bytes and cancelled flag read from the MPI_Status's own
 * fields, where the build found which fields this MPI keeps them in (IPM does the
 * same): MPI_Get_elements_x costs about 115 instructions a completed receive, and
 * MPI_Test_cancelled a call more. Both Debian MPIs store a received message's size
 * in bytes. Without a known field (MPIDLE_STATUS_COUNT_FIELD undefined) the
 * portable calls stay. C and C++: the status test program includes it too. */
#ifndef MPIDLE_STATUS_COUNT_H
#define MPIDLE_STATUS_COUNT_H

#include <mpi.h>
#include <stdint.h>

#if defined(MPIDLE_STATUS_UCOUNT) && defined(MPIDLE_STATUS_CANCELLED)
/* Open MPI: a size_t count and an int flag. */
#define MPIDLE_STATUS_COUNT_FIELD "_ucount"
static inline int64_t mpidle_status_count_bytes(const MPI_Status* s) {
  return (int64_t)s->_ucount;
}
static inline int mpidle_status_cancelled(const MPI_Status* s) {
  return s->_cancelled != 0;
}
#elif defined(MPIDLE_STATUS_COUNT_LO) && defined(MPIDLE_STATUS_COUNT_HI)
/* MPICH: the low 32 bits of the count, and the high bits above the cancelled flag. */
#define MPIDLE_STATUS_COUNT_FIELD "count_lo"
static inline int64_t mpidle_status_count_bytes(const MPI_Status* s) {
  return (int64_t)(((uint64_t)((unsigned)s->count_hi_and_cancelled >> 1) << 32) |
                   (uint64_t)(unsigned)s->count_lo);
}
static inline int mpidle_status_cancelled(const MPI_Status* s) {
  return (s->count_hi_and_cancelled & 1) != 0;
}
#endif

#endif
