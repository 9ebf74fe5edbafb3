#include "transport/sparse_exchange.hpp"

#include "transport/yielding.hpp"

namespace mpidle::transport {
namespace {

// Receives a parcel of `tag` if one has arrived (into `incoming`); whether one had.
bool receive_arrived(MPI_Comm comm, int tag, Parcels& incoming) {
  int arrived = 0;
  MPI_Status status;
  PMPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &arrived, &status);
  if (!arrived) return false;
  int count = 0;
  PMPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<std::byte> bytes(static_cast<std::size_t>(count));
  PMPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
  incoming.emplace_back(status.MPI_SOURCE, std::move(bytes));
  return true;
}

}  // namespace

Parcels sparse_exchange(MPI_Comm comm, const Parcels& outgoing, int tag) {
  // Never throws halfway: every rank must reach the barrier.
  std::vector<MPI_Request> sends(outgoing.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < outgoing.size(); ++i) {
    const auto& [to, bytes] = outgoing[i];
    if (!fits_one_message(bytes)) continue;  // left out: see header
    PMPI_Issend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, comm, &sends[i]);
  }
  Parcels incoming;
  Idle idle;
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool in_barrier = false;
  for (;;) {
    if (receive_arrived(comm, tag, incoming)) {
      idle = Idle{};  // progress: the next wait starts with yields again
      continue;
    }
    if (!in_barrier) {
      int done = 0;
      PMPI_Testall(static_cast<int>(sends.size()), sends.data(), &done, MPI_STATUSES_IGNORE);
      if (done) {
        PMPI_Ibarrier(comm, &barrier);
        in_barrier = true;
      }
    } else {
      int done = 0;
      PMPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
      if (done) break;
    }
    // Nothing arrived: let the other ranks of an oversubscribed node run, as the
    // replay does while it waits.
    idle();
  }
  return incoming;
}

Parcels answer_exchange(MPI_Comm comm, const Parcels& replies, std::size_t expected, int tag) {
  std::vector<MPI_Request> sends(replies.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < replies.size(); ++i) {
    const auto& [to, bytes] = replies[i];
    // An answer too large for one message goes as none: its receiver reads an empty one.
    const int count = fits_one_message(bytes) ? static_cast<int>(bytes.size()) : 0;
    PMPI_Isend(bytes.data(), count, MPI_BYTE, to, tag, comm, &sends[i]);
  }
  Parcels incoming;
  Idle idle;
  while (incoming.size() < expected) {
    if (receive_arrived(comm, tag, incoming)) {
      idle = Idle{};
    } else {
      idle();  // as sparse_exchange
    }
  }
  for (auto& send : sends) wait_yielding(send);
  return incoming;
}

Parcels ask_and_answer(MPI_Comm comm, const Parcels& questions, int question_tag, int answer_tag,
                       const std::function<std::optional<Parcels>(const Parcels&)>& answer) {
  const Parcels asked = sparse_exchange(comm, questions, question_tag);
  std::optional<Parcels> replies = answer(asked);
  return answer_exchange(comm, replies ? *replies : empty_answers(asked), parcels_sent(questions),
                         answer_tag);
}

}  // namespace mpidle::transport
