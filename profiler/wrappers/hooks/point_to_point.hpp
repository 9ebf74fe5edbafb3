#pragma once
// Point-to-point: sends, receives, Sendrecv, persistent and partitioned requests, Start, cancel and
// free. One struct per kind of mpi_functions.def; what before() and after() do: hooks.hpp.

#include "profiler/wrappers/hooks/common.hpp"

namespace mpidle::profiler::hooks {

template <bool kSynchronous>
struct SendOf {
  std::uint64_t m_bytes;
  std::int32_t m_peer;
  void before(Call& call, std::uint64_t bytes, int dest, int tag, MPI_Comm comm) {
    m_bytes = bytes;
    m_peer = world_peer(dest, comm);
    if (tracing()) {
      call.trace().role = TraceRole::send;
      call.trace().tag = tag;
      call.trace().comm = detail::comm_id(comm);
      if (kSynchronous) call.trace().flags = model::kTraceSynchronous;
    }
  }
  void after(Call& call, int) { call.record(m_bytes, m_peer); }
};
using Send = SendOf<false>;
using Ssend = SendOf<true>;

struct Recv {
  std::uint64_t m_posted;
  std::int32_t m_peer;  // world rank, or kPeerFromStatus for MPI_ANY_SOURCE
  std::int32_t m_tag;
  MPI_Comm m_comm;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  void before(Call& call, std::uint64_t posted, int source, int tag, MPI_Comm comm,
              MPI_Status*& status) {
    m_posted = posted;
    m_peer = detail::world_source(source, comm);
    m_tag = tag;
    m_comm = comm;
    // The status names the sender of a wildcard receive and the bytes received.
    status = detail::own_status_if_ignored(status, m_own_status);
    m_status = status;
    if (tracing()) {
      call.trace().role = TraceRole::recv;
      call.trace().comm = detail::comm_id(comm);
    }
  }
  std::uint64_t received() const { return received_bytes(m_status, m_posted); }
  std::int32_t peer() const { return detail::peer_from_status(m_peer, m_status, m_comm); }
  void after(Call& call, int rc) {
    if (tracing()) call.trace().tag = detail::tag_of(m_tag, m_status);
    call.record(rc == MPI_SUCCESS ? received() : m_posted, rc == MPI_SUCCESS ? peer() : -1);
  }
};

// Sendrecv: keyed by its source (waiting is for the receive) and classed by the
// bytes sent plus the bytes received; in trace mode a further record for its
// send half.
struct Sendrecv {
  Recv m_recv;
  std::uint64_t m_sent;
  std::int32_t m_dest;
  std::int32_t m_sendtag;
  void before(Call& call, std::uint64_t sent, std::uint64_t posted, int dest, int sendtag,
              int source, int recvtag, MPI_Comm comm, MPI_Status*& status) {
    m_recv.before(call, posted, source, recvtag, comm, status);
    m_sent = sent;
    m_dest = world_peer(dest, comm);
    m_sendtag = sendtag;
  }
  void after(Call& call, int rc) {
    if (tracing()) call.trace().tag = detail::tag_of(m_recv.m_tag, m_recv.m_status);
    const std::uint64_t received = rc == MPI_SUCCESS ? m_recv.received() : 0;
    call.record(m_sent + received, rc == MPI_SUCCESS ? m_recv.peer() : -1);
    if (!tracing()) return;
    TraceInfo send = call.trace();
    send.role = TraceRole::send;
    send.tag = m_sendtag;
    call.trace_extra(send, m_dest, m_sent);
  }
};

// The request's table entry is written in place once the call returned: nothing
// is built ahead and copied.
template <bool kReceive, bool kPersistent, bool kSynchronous = false>
struct StartP2P {
  std::uint64_t m_bytes;  // sent, or the receive's posted buffer
  std::uint64_t m_sent;   // Isendrecv: its send half
  std::int32_t m_peer;    // world rank, or kPeerFromStatus for MPI_ANY_SOURCE
  std::int32_t m_tag;
  MPI_Comm m_comm;
  MPI_Request* m_request;
  std::uint32_t m_comm_id;  // trace mode
  std::uint32_t m_serial;   // trace mode
  void before(Call& call, std::uint64_t bytes, int peer, int tag, MPI_Comm comm,
              MPI_Request* request) {
    m_bytes = bytes;
    m_sent = 0;
    m_peer = detail::world_source(peer, comm);
    m_tag = tag;
    m_comm = comm;
    m_request = request;
    m_comm_id = 0;
    m_serial = 0;
    if (tracing()) {
      m_comm_id = detail::comm_id(comm);
      call.trace().comm = m_comm_id;
      call.trace().tag = tag;
      if (kSynchronous) call.trace().flags = model::kTraceSynchronous;
      // Persistent requests start traffic only at MPI_Start.
      if (!kPersistent) {
        call.trace().role = kReceive ? TraceRole::irecv : TraceRole::isend;
        m_serial = detail::next_serial();
        call.trace().sequence = m_serial;
      }
    }
  }
  [[gnu::always_inline]] void after(Call& call, int rc) {
    call.record(m_bytes, m_peer == kPeerFromStatus ? -1 : m_peer);
    if (rc != MPI_SUCCESS) return;
    HandleTable* table = detail::requests();
    if (table == nullptr) return;
    const HandleTable::Claim claim = table->claim(handle_key(*m_request));
    if (!claim) return;
    PendingOp& op = claim.op();
    op.bytes = kReceive ? m_sent : m_bytes;
    op.posted_bytes = kReceive ? m_bytes : 0;
    op.comm = nullptr;
    if (m_peer == kPeerFromStatus && (op.comm = comm_info(m_comm)) != nullptr) op.comm->hold();
    op.peer = m_peer;
    op.tag = m_tag;
    op.comm_id = m_comm_id;
    op.serial = m_serial;
    op.root = -1;
    op.collective_kind = 0;
    op.persistent = kPersistent;
    op.receive = kReceive;
    op.send = !kReceive;
    op.synchronous = kSynchronous;
    op.cancel_requested = false;
    claim.publish();
  }
};
using Isend = StartP2P<false, false>;
using Issend = StartP2P<false, false, true>;
using Irecv = StartP2P<true, false>;
using SendInit = StartP2P<false, true>;
using SsendInit = StartP2P<false, true, true>;
using RecvInit = StartP2P<true, true>;

// Isendrecv: one request for both halves. Traced as the receive it posts (the
// call's record) and a further record for its send half; it completes as the
// receive, and its bytes are the sent plus the received ones.
struct Isendrecv {
  StartP2P<true, false> m_recv;
  std::int32_t m_dest;
  std::int32_t m_sendtag;
  void before(Call& call, std::uint64_t sent, std::uint64_t posted, int dest, int sendtag,
              int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
    m_recv.before(call, posted, source, recvtag, comm, request);
    m_recv.m_sent = sent;
    m_dest = world_peer(dest, comm);
    m_sendtag = sendtag;
  }
  void after(Call& call, int rc) {
    m_recv.after(call, rc);
    if (!tracing() || rc != MPI_SUCCESS) return;
    TraceInfo send = call.trace();
    send.role = TraceRole::isend;
    send.tag = m_sendtag;
    send.sequence = 0;  // the request completes as the receive
    call.trace_extra(send, m_dest, m_recv.m_sent);
  }
};

// Starting a persistent request: traced as the isend/irecv it stands for.
inline void start_persistent(Call& call, std::uint64_t handle, PendingOp& op, bool own_record) {
  if (!tracing() || op.collective_kind != 0 || (!op.send && !op.receive)) return;
  TraceInfo info;
  info.role = op.receive ? TraceRole::irecv : TraceRole::isend;
  info.comm = op.comm_id;
  info.tag = op.tag;
  info.flags = op.synchronous ? model::kTraceSynchronous : 0;
  op.serial = detail::next_serial();
  op.cancel_requested = false;
  info.sequence = op.serial;
  if (HandleTable* table = detail::requests()) table->put(handle, op);
  const std::int32_t peer = op.peer < 0 ? -1 : op.peer;
  if (own_record) {
    call.trace() = info;
  } else {
    call.trace_extra(info, peer, op.receive ? op.posted_bytes : op.bytes);
  }
}

struct Start {
  PendingOp m_op;
  std::uint64_t m_handle;
  void before(Call& call, MPI_Request* request) {
    m_handle = handle_key(*request);
    HandleTable* table = detail::requests();
    auto found = table ? table->find(m_handle) : std::nullopt;
    m_op = found ? *found : PendingOp{};
    if (found) start_persistent(call, m_handle, m_op, true);
  }
  void after(Call& call, int) {
    call.record(m_op.receive ? m_op.posted_bytes : m_op.bytes, m_op.peer < 0 ? -1 : m_op.peer);
  }
};

struct Startall {
  detail::RequestSnapshot m_snapshot;
  void before(Call&, int count, MPI_Request* requests) { m_snapshot.take(count, requests); }
  void after(Call& call, int rc) {
    call.record(0, -1);
    HandleTable* table = detail::requests();
    if (!tracing() || rc != MPI_SUCCESS || table == nullptr) return;
    for (int i = 0; i < m_snapshot.count(); ++i) {
      if (auto found = table->find(m_snapshot.handle(i))) {
        PendingOp op = *found;
        start_persistent(call, m_snapshot.handle(i), op, false);
      }
    }
  }
};

struct RequestFree {
  std::uint64_t m_handle;
  void before(Call&, MPI_Request* request) { m_handle = handle_key(*request); }
  void after(Call& call, int rc) {
    if (HandleTable* table = detail::requests(); table && rc == MPI_SUCCESS) {
      const auto op = table->take(m_handle);
      if (op && op->persistent && op->comm) op->comm->release();
    }
    call.record(0, -1);
  }
};

// MPI_Cancel: the request still completes in a Wait or Test; its status then says
// whether the cancellation succeeded (only then is it traced as cancelled).
struct Cancel {
  std::uint64_t m_handle;
  void before(Call&, MPI_Request* request) { m_handle = handle_key(*request); }
  void after(Call& call, int rc) {
    if (HandleTable* table = detail::requests(); table && rc == MPI_SUCCESS) {
      table->mark_cancelled(m_handle);
    }
    call.record(0, -1);
  }
};

// A call that starts a request carrying no message (file I/O, generalized and
// partitioned requests, Comm_idup): known, so that its completion never takes it
// for an older request that had the same handle.
template <bool kPersistent>
struct RequestOtherOf {
  MPI_Request* m_request;
  void before(Call&, MPI_Request* request) { m_request = request; }
  void after(Call& call, int rc) {
    call.record(0, -1);
    if (rc != MPI_SUCCESS) return;
    PendingOp op;
    op.persistent = kPersistent;
    detail::track(detail::requests(), handle_key(*m_request), op);
  }
};
using RequestOther = RequestOtherOf<false>;
using RequestOtherInit = RequestOtherOf<true>;

}  // namespace mpidle::profiler::hooks
