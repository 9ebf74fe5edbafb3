#pragma once
// Which message or collective instance each record of a trace takes part in, and
// what every message carried: what both prediction engines (mpidle's replay and
// SimGrid's) walk. Pure C++, no MPI.

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "model/huge_page_allocator.hpp"
#include "model/trace_file.hpp"
#include "sync/trace_matching.hpp"

namespace mpidle::analysis {

struct TraceLinks {
  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  // Per rank, per record: the message it sends (a send, an Isend, a Sendrecv's call
  // record, the completion of an Isend) or receives (a receive, the Irecv that posts
  // it, the completion that finishes it), else kNone.
  std::vector<model::HugeVector<std::uint64_t>> as_send, as_receive;
  // Collective records are few: a map per rank, not a vector per record.
  std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> as_instance;
  std::vector<std::unordered_map<std::uint64_t, std::uint32_t>> member;  // position in it
  model::HugeVector<std::uint64_t> bytes;  // per message: what it carried
  // Per message: 1 where both ends are calls that block (a send or the Wait of an
  // Isend; a receive or its Wait), not polls: only there can a transfer be held
  // until both sides are in MPI.
  model::HugeVector<std::uint8_t> blocking_ends;
  std::vector<std::uint8_t> polling;  // per function: an MPI_Test* or probe

  std::uint64_t instance_of(std::uint32_t rank, std::uint64_t record) const;
};

TraceLinks link_trace(const model::Trace& trace, const sync::TraceMatching& matching);

}  // namespace mpidle::analysis
