#pragma once
// Each rank sends bytes to some ranks, and receives what was sent to it without
// knowing from whom beforehand: the NBX exchange (Hoefler, Siebert, Lumsdaine,
// "Scalable communication protocols for dynamic sparse data exchange", 2010).
// Synchronous sends, a probe loop, and a non-blocking barrier entered once this
// rank's sends were all received: O(log P) rounds beyond the messages themselves,
// and no rank handles a table of P entries.

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "sync/parcels.hpp"

namespace mpidle::transport {

using Parcels = sync::Parcels;  // (rank, bytes)

// Collective over `comm`; `tag` must not be used by other traffic on `comm` meanwhile.
// Returns what reached this rank, by sender, in arrival order. A parcel over 2 GiB
// (more than one MPI message counts) is not sent: its receiver goes without it.
Parcels sparse_exchange(MPI_Comm comm, const Parcels& outgoing, int tag);

// Whether sparse_exchange sends a parcel of these bytes.
inline bool fits_one_message(const std::vector<std::byte>& bytes) {
  return bytes.size() <= static_cast<std::size_t>(INT_MAX);
}

// The answers to a sparse exchange, where every receiver answers each sender once:
// then each rank knows how many answers it awaits (the parcels it sent) and no
// barrier is needed, a single round. Not collective: only the ranks that talk wait
// for each other. `replies` must hold one parcel for each rank that sent this one a
// parcel; `expected` is how many this rank sent. Returns the answers, by sender.
Parcels answer_exchange(MPI_Comm comm, const Parcels& replies, std::size_t expected, int tag);

// One round of questions and answers, collective over `comm`: `questions` go out
// (sparse_exchange), `answer` answers what reached this rank, one parcel to each
// asker, and the answers come back (answer_exchange). Where `answer` returns nothing
// (this rank cannot answer), each asker gets an empty answer, so that none waits.
Parcels ask_and_answer(MPI_Comm comm, const Parcels& questions, int question_tag, int answer_tag,
                       const std::function<std::optional<Parcels>(const Parcels&)>& answer);

// How many of `outgoing` sparse_exchange sent: the answers answer_exchange awaits.
inline std::size_t parcels_sent(const Parcels& outgoing) {
  std::size_t n = 0;
  for (const auto& [rank, bytes] : outgoing) n += fits_one_message(bytes) ? 1 : 0;
  return n;
}

// An empty answer to every rank in `received`: what a rank with nothing to say
// answers, so that no sender waits for it.
inline Parcels empty_answers(const Parcels& received) {
  Parcels out;
  for (const auto& [rank, bytes] : received) out.emplace_back(rank, std::vector<std::byte>{});
  return out;
}

}  // namespace mpidle::transport
