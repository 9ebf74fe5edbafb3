#pragma once
// What each kind of MPI call records. The generated wrappers call, per kind K:
//   hooks::K hook; hook.before(call, <roles of K>); <timed call>; hook.after(call, rc);
// before() runs ahead of the first clock read and after() behind the second, so
// lookups here never count as MPI time. Role order per kind: gen/gen_wrappers.py.
// In trace mode the hooks also say what the call's trace record means
// (call.trace()), and completion calls add one record per request they finish.

#include <mpi.h>

#include <algorithm>
#include <cstdint>

#include "call.hpp"
#include "handle_table.hpp"
#include "mpi_handles.hpp"

namespace mpidle::profiler::hooks {

using model::CollectiveKind;
using model::TraceRole;

void on_init(int rc);
void on_finalize();
void on_pcontrol(int level);
void on_type_change();

namespace detail {

inline HandleTable* requests() {
  ThreadState* s = thread_state();
  return s ? &s->requests() : nullptr;
}

inline HandleTable* messages() {
  ThreadState* s = thread_state();
  return s ? &s->messages() : nullptr;
}

inline std::uint32_t comm_id(MPI_Comm comm) {
  const CommInfo* info = comm_info(comm);
  return info ? info->id() : 0;
}

// A peer given as a rank in `comm`; ANY_SOURCE is resolved from the status later,
// through the communicator's translation (looked up only once it is needed).
inline PendingOp pending(std::uint64_t bytes, int rank, int tag, MPI_Comm comm, bool receive,
                         bool persistent) {
  PendingOp op;
  op.bytes = bytes;
  op.receive = receive;
  op.send = !receive;
  op.persistent = persistent;
  op.peer = rank == MPI_ANY_SOURCE ? kPeerFromStatus : world_peer(rank, comm);
  op.tag = tag;
  return op;
}

// The sender named by a status of a receive or probe on `comm`.
inline std::int32_t peer_from_status(const PendingOp& op, const MPI_Status* status, MPI_Comm comm) {
  if (op.peer != kPeerFromStatus) return op.peer;
  if (status == nullptr || status == MPI_STATUS_IGNORE) return -1;
  return world_peer(status->MPI_SOURCE, comm);
}

inline std::int32_t peer_of(const PendingOp& op, const MPI_Status* status) {
  if (op.peer != kPeerFromStatus) return op.peer;
  if (status == nullptr || status == MPI_STATUS_IGNORE || op.comm == nullptr) return -1;
  return op.comm->world_rank(status->MPI_SOURCE);
}

inline std::int32_t tag_of(std::int32_t posted, const MPI_Status* status) {
  if (posted != MPI_ANY_TAG) return posted;
  return status && status != MPI_STATUS_IGNORE ? status->MPI_TAG : -1;
}

inline void track(HandleTable* table, std::uint64_t handle, const PendingOp& op) {
  if (table) table->put(handle, op);
}

// Trace mode: the record of one completed receive or non-blocking collective.
inline void trace_completion(Call& call, const PendingOp& op, const MPI_Status* status) {
  if (!tracing() || (!op.receive && op.collective_kind == 0)) return;
  TraceInfo info;
  info.role = TraceRole::completion;
  info.comm = op.comm_id;
  info.sequence = op.serial;
  info.kind = static_cast<CollectiveKind>(op.collective_kind);
  info.root = op.root;
  info.tag = op.receive ? tag_of(op.tag, status) : -1;
  call.trace_extra(info, op.receive ? peer_of(op, status) : -1, op.bytes);
}

// Requests handed to a multiple-completion call, read before MPI nulls them.
class RequestSnapshot {
 public:
  static constexpr int kMax = 256;

  void take(int count, const MPI_Request* requests) {
    m_count = std::clamp(count, 0, kMax);
    for (int i = 0; i < m_count; ++i) m_handles[i] = handle_key(requests[i]);
  }

  // What the request at `index` was (an empty op when unknown).
  PendingOp peek(int index) const {
    if (index < 0 || index >= m_count || m_handles[index] == handle_key(MPI_REQUEST_NULL)) {
      return PendingOp{};
    }
    HandleTable* table = requests();
    auto found = table ? table->find(m_handles[index]) : std::nullopt;
    return found ? *found : PendingOp{};
  }

  // Completes the request at `index`: returns what it was, forgets it if done for good.
  PendingOp complete(int index) {
    const PendingOp op = peek(index);
    if (!op.persistent && index >= 0 && index < m_count) {
      if (HandleTable* table = requests()) table->erase(m_handles[index]);
    }
    return op;
  }

  int count() const { return m_count; }
  std::uint64_t handle(int i) const { return m_handles[i]; }

 private:
  int m_count = 0;
  std::uint64_t m_handles[kMax];
};

}  // namespace detail

// ---- point-to-point -------------------------------------------------------------

struct Send {
  std::uint64_t m_bytes;
  std::int32_t m_peer;
  void before(Call& call, std::uint64_t bytes, int dest, int tag, MPI_Comm comm) {
    m_bytes = bytes;
    m_peer = world_peer(dest, comm);
    if (tracing()) {
      call.trace().role = TraceRole::send;
      call.trace().tag = tag;
      call.trace().comm = detail::comm_id(comm);
    }
  }
  void after(Call& call, int) { call.record(m_bytes, m_peer); }
};

struct Recv {
  PendingOp m_op;
  MPI_Comm m_comm;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  void before(Call& call, std::uint64_t bytes, int source, int tag, MPI_Comm comm,
              MPI_Status*& status) {
    m_op = detail::pending(bytes, source, tag, comm, true, false);
    m_comm = comm;
    // Wildcards need the status to name the sender, even if the caller ignores it.
    const bool wildcard = m_op.peer == kPeerFromStatus || (tracing() && tag == MPI_ANY_TAG);
    if (wildcard && status == MPI_STATUS_IGNORE) status = &m_own_status;
    m_status = status;
    if (tracing()) {
      call.trace().role = TraceRole::recv;
      call.trace().comm = detail::comm_id(comm);
    }
  }
  void after(Call& call, int rc) {
    if (tracing()) call.trace().tag = detail::tag_of(m_op.tag, m_status);
    call.record(m_op.bytes,
                rc == MPI_SUCCESS ? detail::peer_from_status(m_op, m_status, m_comm) : -1);
  }
};

// Sendrecv: a receive (the call's record, keyed by its source: waiting is for the
// receive) and, in trace mode, a further record for its send half.
struct Sendrecv {
  Recv m_recv;
  std::int32_t m_dest;
  std::int32_t m_sendtag;
  void before(Call& call, std::uint64_t bytes, int dest, int sendtag, int source, int recvtag,
              MPI_Comm comm, MPI_Status*& status) {
    m_recv.before(call, bytes, source, recvtag, comm, status);
    m_dest = world_peer(dest, comm);
    m_sendtag = sendtag;
  }
  void after(Call& call, int rc) {
    m_recv.after(call, rc);
    if (!tracing()) return;
    TraceInfo send = call.trace();
    send.role = TraceRole::send;
    send.tag = m_sendtag;
    call.trace_extra(send, m_dest, m_recv.m_op.bytes);
  }
};

template <bool kReceive, bool kPersistent>
struct StartP2P {
  PendingOp m_op;
  MPI_Comm m_comm;
  MPI_Request* m_request;
  void before(Call& call, std::uint64_t bytes, int peer, int tag, MPI_Comm comm,
              MPI_Request* request) {
    m_op = detail::pending(bytes, peer, tag, comm, kReceive, kPersistent);
    m_comm = comm;
    m_request = request;
    if (tracing()) {
      m_op.comm_id = detail::comm_id(comm);
      call.trace().comm = m_op.comm_id;
      call.trace().tag = tag;
      // Persistent requests start traffic only at MPI_Start.
      if (!kPersistent) call.trace().role = kReceive ? TraceRole::irecv : TraceRole::isend;
      if (!kPersistent && kReceive) {
        ThreadState* state = thread_state();
        m_op.serial = state ? state->next_request_serial() : 0;
        call.trace().sequence = m_op.serial;
      }
    }
  }
  void after(Call& call, int rc) {
    call.record(m_op.bytes, m_op.peer == kPeerFromStatus ? -1 : m_op.peer);
    if (rc != MPI_SUCCESS) return;
    if (m_op.peer == kPeerFromStatus) m_op.comm = comm_info(m_comm);
    detail::track(detail::requests(), handle_key(*m_request), m_op);
  }
};
using Isend = StartP2P<false, false>;
using Irecv = StartP2P<true, false>;
using SendInit = StartP2P<false, true>;
using RecvInit = StartP2P<true, true>;

// Starting a persistent request: traced as the isend/irecv it stands for.
inline void start_persistent(Call& call, std::uint64_t handle, PendingOp& op, bool own_record) {
  if (!tracing() || op.collective_kind != 0 || (!op.send && !op.receive)) return;
  TraceInfo info;
  info.role = op.receive ? TraceRole::irecv : TraceRole::isend;
  info.comm = op.comm_id;
  info.tag = op.tag;
  if (op.receive) {
    ThreadState* state = thread_state();
    op.serial = state ? state->next_request_serial() : 0;
    info.sequence = op.serial;
    if (HandleTable* table = detail::requests()) table->put(handle, op);
  }
  const std::int32_t peer = op.peer < 0 ? -1 : op.peer;
  if (own_record) {
    call.trace() = info;
  } else {
    call.trace_extra(info, peer, op.bytes);
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
  void after(Call& call, int) { call.record(m_op.bytes, m_op.peer < 0 ? -1 : m_op.peer); }
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
      table->erase(m_handle);
    }
    call.record(0, -1);
  }
};

// ---- probe and matched receive -------------------------------------------------------

struct Probe {
  PendingOp m_op;
  MPI_Comm m_comm;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  void before(Call&, int source, int tag, MPI_Comm comm, MPI_Status*& status) {
    m_op = detail::pending(0, source, tag, comm, true, false);
    m_comm = comm;
    if (status == MPI_STATUS_IGNORE) status = &m_own_status;
    m_status = status;
  }
  std::int32_t peer() const { return detail::peer_from_status(m_op, m_status, m_comm); }
  void after(Call& call, int rc) { call.record(0, rc == MPI_SUCCESS ? peer() : -1); }
};

struct Iprobe {
  Probe m_probe;
  int* m_flag;
  void before(Call& call, int source, int tag, MPI_Comm comm, int* flag, MPI_Status*& status) {
    m_probe.before(call, source, tag, comm, status);
    m_flag = flag;
  }
  void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag) {
      call.record_incomplete(m_probe.m_op.peer == kPeerFromStatus ? -1 : m_probe.m_op.peer);
    } else {
      m_probe.after(call, rc);
    }
  }
};

// A matched probe remembers the sender (and tag, communicator) for the
// MPI_Mrecv/MPI_Imrecv of its message.
struct Mprobe {
  Probe m_probe;
  MPI_Message* m_message;
  void before(Call& call, int source, int tag, MPI_Comm comm, MPI_Message* message,
              MPI_Status*& status) {
    m_probe.before(call, source, tag, comm, status);
    m_message = message;
  }
  void after(Call& call, int rc) {
    m_probe.after(call, rc);
    if (rc == MPI_SUCCESS && *m_message != MPI_MESSAGE_NULL) {
      PendingOp op;
      op.peer = m_probe.peer();
      op.tag = m_probe.m_status->MPI_TAG;
      if (tracing()) op.comm_id = detail::comm_id(m_probe.m_comm);
      detail::track(detail::messages(), handle_key(*m_message), op);
    }
  }
};

struct Improbe {
  Mprobe m_mprobe;
  int* m_flag;
  void before(Call& call, int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
              MPI_Status*& status) {
    m_mprobe.before(call, source, tag, comm, message, status);
    m_flag = flag;
  }
  void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag) {
      const auto& op = m_mprobe.m_probe.m_op;
      call.record_incomplete(op.peer == kPeerFromStatus ? -1 : op.peer);
    } else {
      m_mprobe.after(call, rc);
    }
  }
};

inline PendingOp take_message(MPI_Message message) {
  PendingOp op;
  HandleTable* table = detail::messages();
  if (table == nullptr) return op;
  if (auto found = table->find(handle_key(message))) {
    op = *found;
    table->erase(handle_key(message));
  }
  return op;
}

struct Mrecv {
  std::uint64_t m_bytes;
  PendingOp m_message;
  void before(Call& call, std::uint64_t bytes, MPI_Message* message, MPI_Status*&) {
    m_bytes = bytes;
    m_message = take_message(*message);
    if (tracing()) {
      call.trace().role = TraceRole::recv;
      call.trace().tag = m_message.tag;
      call.trace().comm = m_message.comm_id;
    }
  }
  void after(Call& call, int) { call.record(m_bytes, m_message.peer); }
};

struct Imrecv {
  PendingOp m_op;
  MPI_Request* m_request;
  void before(Call& call, std::uint64_t bytes, MPI_Message* message, MPI_Request* request) {
    m_op = take_message(*message);
    m_op.bytes = bytes;
    m_op.receive = true;
    m_request = request;
    if (tracing()) {
      ThreadState* state = thread_state();
      m_op.serial = state ? state->next_request_serial() : 0;
      call.trace().role = TraceRole::irecv;
      call.trace().sequence = m_op.serial;
      call.trace().comm = m_op.comm_id;
      call.trace().tag = m_op.tag;
    }
  }
  void after(Call& call, int rc) {
    call.record(m_op.bytes, m_op.peer);
    if (rc == MPI_SUCCESS) detail::track(detail::requests(), handle_key(*m_request), m_op);
  }
};

// ---- completion -------------------------------------------------------------------
// One completed request: its peer and bytes. Several: peer -1 and the bytes received.

struct Wait {
  detail::RequestSnapshot m_snapshot;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  void before(Call&, MPI_Request* request, MPI_Status*& status) {
    m_snapshot.take(1, request);
    if (status == MPI_STATUS_IGNORE) status = &m_own_status;
    m_status = status;
  }
  void after(Call& call, int) {
    const PendingOp op = m_snapshot.complete(0);
    call.record(op.bytes, detail::peer_of(op, m_status));
    detail::trace_completion(call, op, m_status);
  }
};

struct Test {
  Wait m_wait;
  int* m_flag;
  void before(Call& call, MPI_Request* request, int* flag, MPI_Status*& status) {
    m_wait.before(call, request, status);
    m_flag = flag;
  }
  void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag) {
      call.record_incomplete(-1);
    } else {
      m_wait.after(call, rc);
    }
  }
};

struct Waitany {
  detail::RequestSnapshot m_snapshot;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  int* m_index;
  void before(Call&, int count, MPI_Request* requests, int* index, MPI_Status*& status) {
    m_snapshot.take(count, requests);
    if (status == MPI_STATUS_IGNORE) status = &m_own_status;
    m_status = status;
    m_index = index;
  }
  void after(Call& call, int rc) {
    const PendingOp op = rc == MPI_SUCCESS ? m_snapshot.complete(*m_index) : PendingOp{};
    call.record(op.bytes, detail::peer_of(op, m_status));
    detail::trace_completion(call, op, m_status);
  }
};

struct Testany {
  Waitany m_waitany;
  int* m_flag;
  void before(Call& call, int count, MPI_Request* requests, int* index, int* flag,
              MPI_Status*& status) {
    m_waitany.before(call, count, requests, index, status);
    m_flag = flag;
  }
  void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag) {
      call.record_incomplete(-1);
    } else {
      m_waitany.after(call, rc);
    }
  }
};

// Several requests (Waitall, Testall, Waitsome, Testsome). Statuses are not
// substituted here: wildcard receives completed this way keep peer/tag unknown.
inline void record_completed_set(Call& call, detail::RequestSnapshot& snapshot, const int* indices,
                                 int completed) {
  // The call's record first (trace records of the requests need its callsite),
  // then each request is completed; nothing is copied aside in between.
  const int n = std::min(completed, detail::RequestSnapshot::kMax);
  if (n == 1) {
    const PendingOp op = snapshot.peek(indices ? indices[0] : 0);
    call.record(op.bytes, op.peer == kPeerFromStatus ? -1 : op.peer);
  } else {
    std::uint64_t received = 0;
    for (int i = 0; i < n; ++i) {
      const PendingOp op = snapshot.peek(indices ? indices[i] : i);
      if (op.receive) received += op.bytes;
    }
    call.record(received, -1);
  }
  for (int i = 0; i < n; ++i) {
    detail::trace_completion(call, snapshot.complete(indices ? indices[i] : i), nullptr);
  }
}

struct Waitall {
  detail::RequestSnapshot m_snapshot;
  void before(Call&, int count, MPI_Request* requests) { m_snapshot.take(count, requests); }
  void after(Call& call, int) {
    record_completed_set(call, m_snapshot, nullptr, m_snapshot.count());
  }
};

struct Testall {
  Waitall m_waitall;
  int* m_flag;
  void before(Call& call, int count, MPI_Request* requests, int* flag) {
    m_waitall.before(call, count, requests);
    m_flag = flag;
  }
  void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag) {
      call.record_incomplete(-1);
    } else {
      m_waitall.after(call, rc);
    }
  }
};

struct Waitsome {
  detail::RequestSnapshot m_snapshot;
  int* m_outcount;
  int* m_indices;
  void before(Call&, int count, MPI_Request* requests, int* outcount, int* indices) {
    m_snapshot.take(count, requests);
    m_outcount = outcount;
    m_indices = indices;
  }
  void after(Call& call, int rc) {
    const int n = rc == MPI_SUCCESS && *m_outcount != MPI_UNDEFINED ? *m_outcount : 0;
    if (n == 0 && rc == MPI_SUCCESS && *m_outcount == 0) {
      call.record_incomplete(-1);
      return;
    }
    record_completed_set(call, m_snapshot, m_indices, n);
  }
};
using Testsome = Waitsome;

// ---- collectives --------------------------------------------------------------------

struct Coll {
  std::uint64_t m_bytes;
  std::int32_t m_peer;
  void before(Call& call, std::uint64_t bytes, int root, MPI_Comm comm, CollectiveKind kind) {
    m_bytes = bytes;
    m_peer = root == kNoRoot ? -1 : world_peer(root, comm);
    if (tracing()) {
      CommInfo* info = comm_info(comm);
      TraceInfo& t = call.trace();
      t.role = TraceRole::collective;
      t.kind = kind;
      t.comm = info ? info->id() : 0;
      t.sequence = info ? info->next_collective() : 0;
      // Scans need the caller's rank in the communicator; rooted ones the root.
      const bool scan = kind == CollectiveKind::scan || kind == CollectiveKind::exscan;
      t.root = scan ? (info ? info->my_rank() : -1) : m_peer;
    }
  }
  void after(Call& call, int) { call.record(m_bytes, m_peer); }
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

// ---- communicators, datatypes, everything else --------------------------------------

// A new or freed communicator handle may be a reused one: drop what was cached
// for it. In trace mode the new communicator's translation (and id) is built at
// once, in creation order, which is the same on every member.
template <bool kEager>
struct CommMake {
  MPI_Comm* m_comm;
  void before(Call&, MPI_Comm* comm) { m_comm = comm; }
  void after(Call& call, int rc) {
    call.record(0, -1);
    Context* context = Context::current();
    if (rc != MPI_SUCCESS || context == nullptr) return;
    context->comms().forget(handle_key(*m_comm));
    if (kEager && tracing() && *m_comm != MPI_COMM_NULL) build_comm_info(*m_comm);
  }
};
using CommCreate = CommMake<true>;
using CommIcreate = CommMake<false>;

struct CommFree {
  std::uint64_t m_handle;
  void before(Call&, MPI_Comm* comm) { m_handle = handle_key(*comm); }
  void after(Call& call, int) {
    call.record(0, -1);
    if (Context* context = Context::current()) context->comms().forget(m_handle);
  }
};

struct TypeChange {
  void before(Call&) {}
  void after(Call& call, int) {
    call.record(0, -1);
    on_type_change();
  }
};

struct TimeOnly {
  void before(Call&) {}
  void after(Call& call, int) { call.record(0, -1); }
};

}  // namespace mpidle::profiler::hooks
