#include "profiler/runtime/own_world.hpp"

namespace mpidle::profiler {

// These PMPI_ calls land in mpidle's own wrappers, nested inside the call that
// opened MPI: the wrappers pass them straight through.

std::optional<OwnWorld> OwnWorld::from_world_model() {
  OwnWorld own;
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &own.m_comm) != MPI_SUCCESS) return std::nullopt;
  return own;
}

std::optional<OwnWorld> OwnWorld::from_session() {
#if MPI_VERSION >= 4
  OwnWorld own;
  if (PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &own.m_session) != MPI_SUCCESS) {
    return std::nullopt;
  }
  MPI_Group world = MPI_GROUP_NULL;
  if (PMPI_Group_from_session_pset(own.m_session, "mpi://WORLD", &world) == MPI_SUCCESS) {
    PMPI_Comm_create_from_group(world, "org.mpidle.profiler", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                &own.m_comm);
    PMPI_Group_free(&world);
  }
  if (own.m_comm == MPI_COMM_NULL) {
    PMPI_Session_finalize(&own.m_session);
    return std::nullopt;
  }
  return own;
#else
  return std::nullopt;  // not reached: an MPI without sessions has no MPI_Session_init
#endif
}

void OwnWorld::close() {
  if (m_comm != MPI_COMM_NULL) PMPI_Comm_free(&m_comm);
#if MPI_VERSION >= 4
  if (m_session != MPI_SESSION_NULL) PMPI_Session_finalize(&m_session);
#endif
}

}  // namespace mpidle::profiler
