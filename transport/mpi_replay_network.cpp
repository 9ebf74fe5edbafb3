#include "transport/mpi_replay_network.hpp"

#include <sched.h>

#include <cstring>
#include <string>

#include "transport/yielding.hpp"

namespace mpidle::transport {
namespace {

constexpr int kBatchTag = 0x6d70;

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw MpiError(std::string("parallel replay: ") + what + " failed");
}

// MPI_Op over whole tallies (one element of the contiguous type each).
void combine_tallies(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) {
    sync::ReplayTally a, b;
    std::memcpy(&a, static_cast<char*>(in) + i * sizeof a, sizeof a);
    std::memcpy(&b, static_cast<char*>(inout) + i * sizeof b, sizeof b);
    const sync::ReplayTally c = sync::combine(a, b);
    std::memcpy(static_cast<char*>(inout) + i * sizeof c, &c, sizeof c);
  }
}

}  // namespace

MpiReplayNetwork::MpiReplayNetwork(MPI_Comm comm) {
  // Not the blocking MPI_Comm_dup: it spins (yielding.hpp); 45 ms at 8 ranks on 2 cores.
  MPI_Request duplicated = MPI_REQUEST_NULL;
  check(PMPI_Comm_idup(comm, &m_comm, &duplicated), "MPI_Comm_idup");
  wait_yielding(duplicated);
  PMPI_Comm_set_errhandler(m_comm, MPI_ERRORS_RETURN);
  PMPI_Comm_size(m_comm, &m_size);
  PMPI_Comm_rank(m_comm, &m_rank);
  check(PMPI_Type_contiguous(static_cast<int>(sizeof(sync::ReplayTally)), MPI_BYTE, &m_tally_type),
        "MPI_Type_contiguous");
  check(PMPI_Type_commit(&m_tally_type), "MPI_Type_commit");
  check(PMPI_Op_create(&combine_tallies, 1, &m_combine), "MPI_Op_create");
}

MpiReplayNetwork::~MpiReplayNetwork() {
  // Every batch was received before the replay ended (that is how it ends).
  for (auto& s : m_sends) PMPI_Wait(&s.request, MPI_STATUS_IGNORE);
  if (m_reduction != MPI_REQUEST_NULL) PMPI_Wait(&m_reduction, MPI_STATUS_IGNORE);
  if (m_combine != MPI_OP_NULL) PMPI_Op_free(&m_combine);
  if (m_tally_type != MPI_DATATYPE_NULL) PMPI_Type_free(&m_tally_type);
  if (m_comm != MPI_COMM_NULL) PMPI_Comm_free(&m_comm);
}

void MpiReplayNetwork::send(int process, std::vector<sync::ReplayItem>&& batch) {
  auto& s = m_sends.emplace_back();
  s.batch = std::move(batch);
  check(PMPI_Isend(s.batch.data(), static_cast<int>(s.batch.size() * sizeof(sync::ReplayItem)),
                   MPI_BYTE, process, kBatchTag, m_comm, &s.request),
        "MPI_Isend");
}

void MpiReplayNetwork::reap_sends() {
  while (!m_sends.empty()) {
    int done = 0;
    check(PMPI_Test(&m_sends.front().request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) return;
    m_sends.pop_front();
  }
}

bool MpiReplayNetwork::receive(std::vector<sync::ReplayItem>& batch) {
  reap_sends();
  int arrived = 0;
  MPI_Status status;
  check(PMPI_Iprobe(MPI_ANY_SOURCE, kBatchTag, m_comm, &arrived, &status), "MPI_Iprobe");
  if (!arrived) return false;
  int bytes = 0;
  check(PMPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
  batch.resize(static_cast<std::size_t>(bytes) / sizeof(sync::ReplayItem));
  check(PMPI_Recv(batch.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kBatchTag, m_comm,
                  MPI_STATUS_IGNORE),
        "MPI_Recv");
  return true;
}

void MpiReplayNetwork::start_reduction(const sync::ReplayTally& tally) {
  m_tally_in = tally;
  check(
      PMPI_Iallreduce(&m_tally_in, &m_tally_out, 1, m_tally_type, m_combine, m_comm, &m_reduction),
      "MPI_Iallreduce");
}

bool MpiReplayNetwork::reduction_done(sync::ReplayTally& out) {
  if (m_reduction == MPI_REQUEST_NULL) return false;
  int done = 0;
  check(PMPI_Test(&m_reduction, &done, MPI_STATUS_IGNORE), "MPI_Test");
  if (!done) return false;
  out = m_tally_out;
  return true;
}

}  // namespace mpidle::transport

namespace mpidle::transport {

void MpiReplayNetwork::idle() {
  sched_yield();
}

}  // namespace mpidle::transport
