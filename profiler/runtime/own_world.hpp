#pragma once
// mpidle's own communicator over every process, for its traffic at init and
// finalize, away from the application's communicators. A program that enters MPI
// with MPI_Init gets a duplicate of MPI_COMM_WORLD; one that enters through an
// MPI-4 session (where MPI_COMM_WORLD does not exist) gets a communicator over
// "mpi://WORLD" of a session of mpidle's own, which also keeps MPI alive until the
// profile is written.

#include <mpi.h>

#include <optional>

namespace mpidle::profiler {

class OwnWorld {
 public:
  // Nullopt when MPI refuses (the caller says so).
  static std::optional<OwnWorld> from_world_model();
  static std::optional<OwnWorld> from_session();

  MPI_Comm comm() const { return m_comm; }
  // Frees the communicator, and ends the session when there is one.
  void close();

 private:
  MPI_Comm m_comm = MPI_COMM_NULL;
#if MPI_VERSION >= 4
  MPI_Session m_session = MPI_SESSION_NULL;
#endif
};

}  // namespace mpidle::profiler
