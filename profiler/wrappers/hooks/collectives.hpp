#pragma once
// Collectives, blocking, non-blocking and persistent.
// One struct per kind of mpi_functions.def; what before() and after() do: hooks.hpp.

#include "profiler/wrappers/hooks/common.hpp"

namespace mpidle::profiler::hooks {

// Keyed by the communicator's shape as well: a collective's cost depends on how
// many ranks take part.

struct Coll {
  std::uint64_t m_bytes;
  std::int32_t m_peer;
  std::int32_t m_shape;
  void before(Call& call, std::uint64_t bytes, int root, MPI_Comm comm, CollectiveKind kind) {
    m_bytes = bytes;
    CommInfo* info = comm_info(comm);
    m_shape = info ? info->shape() : 0;
    m_peer = root == kNoRoot ? -1 : world_peer(root, comm);
    // Numbered in every mode: a trace window that opens mid-run must number each
    // instance as every other member does.
    const std::uint32_t sequence = info ? info->next_collective() : 0;
    if (tracing()) {
      TraceInfo& t = call.trace();
      t.role = TraceRole::collective;
      t.kind = kind;
      t.comm = info ? info->id() : 0;
      t.tag = m_shape;
      t.sequence = sequence;
      // Scans need the caller's rank in the communicator; rooted ones the root.
      const bool scan = kind == CollectiveKind::scan || kind == CollectiveKind::exscan;
      t.root = scan ? (info ? info->my_rank() : -1) : m_peer;
    }
  }
  void after(Call& call, int) { call.record_on(m_bytes, m_peer, m_shape); }
};

template <bool kPersistent>
struct StartColl {
  Coll m_coll;
  MPI_Request* m_request;
  void before(Call& call, std::uint64_t bytes, int root, MPI_Comm comm, CollectiveKind kind,
              MPI_Request* request) {
    // Persistent collectives (MPI 4) are traced without dependencies.
    m_coll.before(call, bytes, root, comm, kPersistent ? CollectiveKind::none : kind);
    if (tracing()) call.trace().role = kPersistent ? TraceRole::other : TraceRole::icollective;
    m_request = request;
  }
  void after(Call& call, int rc) {
    m_coll.after(call, rc);
    if (rc == MPI_SUCCESS) {
      PendingOp op;
      op.bytes = m_coll.m_bytes;
      op.peer = m_coll.m_peer;
      op.persistent = kPersistent;
      if (tracing() && !kPersistent) {
        op.collective_kind = static_cast<std::uint8_t>(call.trace().kind);
        op.comm_id = call.trace().comm;
        op.serial = call.trace().sequence;
        op.root = call.trace().root;
      }
      detail::track(detail::requests(), handle_key(*m_request), op);
    }
  }
};
using Icoll = StartColl<false>;
using CollInit = StartColl<true>;

}  // namespace mpidle::profiler::hooks
