#pragma once
// The parallel replay's network over MPI: a duplicate of the given communicator,
// batches as non-blocking byte messages, the tally as MPI_Iallreduce with its own
// operation. PMPI only, so that the profiler can replay at MPI_Finalize without
// seeing its own messages.

#include <mpi.h>

#include <deque>
#include <stdexcept>
#include <vector>

#include "sync/replay_network.hpp"

namespace mpidle::transport {

class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class MpiReplayNetwork final : public sync::ReplayNetwork {
 public:
  explicit MpiReplayNetwork(MPI_Comm comm);  // collective over comm
  ~MpiReplayNetwork() override;              // collective: frees the duplicate
  MpiReplayNetwork(const MpiReplayNetwork&) = delete;
  MpiReplayNetwork& operator=(const MpiReplayNetwork&) = delete;

  int processes() const override { return m_size; }
  int self() const override { return m_rank; }
  void send(int process, std::vector<sync::ReplayItem>&& batch) override;
  bool receive(std::vector<sync::ReplayItem>& batch) override;
  void start_reduction(const sync::ReplayTally& tally) override;
  bool reduction_done(sync::ReplayTally& out) override;
  void idle() override;

 private:
  struct PendingSend {
    MPI_Request request = MPI_REQUEST_NULL;
    std::vector<sync::ReplayItem> batch;
  };
  void reap_sends();

  MPI_Comm m_comm = MPI_COMM_NULL;
  int m_size = 1, m_rank = 0;
  MPI_Datatype m_tally_type = MPI_DATATYPE_NULL;
  MPI_Op m_combine = MPI_OP_NULL;
  std::deque<PendingSend> m_sends;
  sync::ReplayTally m_tally_in, m_tally_out;
  MPI_Request m_reduction = MPI_REQUEST_NULL;
};

}  // namespace mpidle::transport
