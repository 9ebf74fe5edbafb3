#pragma once
// What each kind of MPI call records. The generated wrappers call, per kind K:
//   hooks::K hook; hook.before(call, <roles of K>); <timed call>; hook.after(call, rc);
// before() runs ahead of the first clock read and after() behind the second, so
// lookups here never count as MPI time. Role order per kind: gen/gen_wrappers.py.

#include <mpi.h>

#include <algorithm>
#include <cstdint>

#include "call.hpp"
#include "handle_table.hpp"
#include "mpi_handles.hpp"

namespace mpidle::profiler::hooks {

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

inline std::int32_t peer_of(const PendingOp& op, const MPI_Status* status) {
  if (op.peer != kPeerFromStatus) return op.peer;
  if (status == nullptr || status == MPI_STATUS_IGNORE || op.comm == nullptr) return -1;
  return op.comm->world_rank(status->MPI_SOURCE);
}

// A peer given as a rank in `comm`; ANY_SOURCE is resolved from the status later,
// through the communicator's translation (looked up only once it is needed).
inline PendingOp pending(std::uint64_t bytes, int rank, MPI_Comm comm, bool receive,
                         bool persistent) {
  PendingOp op;
  op.bytes = bytes;
  op.receive = receive;
  op.persistent = persistent;
  op.peer = rank == MPI_ANY_SOURCE ? kPeerFromStatus : world_peer(rank, comm);
  return op;
}

// The sender named by a status of a receive or probe on `comm`.
inline std::int32_t peer_from_status(const PendingOp& op, const MPI_Status* status, MPI_Comm comm) {
  if (op.peer != kPeerFromStatus) return op.peer;
  if (status == nullptr || status == MPI_STATUS_IGNORE) return -1;
  return world_peer(status->MPI_SOURCE, comm);
}

inline void track(HandleTable* table, std::uint64_t handle, const PendingOp& op) {
  if (table) table->put(handle, op);
}

// Requests handed to a multiple-completion call, read before MPI nulls them.
class RequestSnapshot {
 public:
  static constexpr int kMax = 256;

  void take(int count, const MPI_Request* requests) {
    m_count = std::clamp(count, 0, kMax);
    for (int i = 0; i < m_count; ++i) m_handles[i] = handle_key(requests[i]);
  }

  // Completes the request at `index`: returns what it was, forgets it if done for good.
  PendingOp complete(int index) {
    PendingOp op;
    if (index < 0 || index >= m_count || m_handles[index] == handle_key(MPI_REQUEST_NULL)) {
      return op;
    }
    HandleTable* table = requests();
    if (table == nullptr) return op;
    if (auto found = table->find(m_handles[index])) {
      op = *found;
      if (!op.persistent) table->erase(m_handles[index]);
    }
    return op;
  }

  int count() const { return m_count; }

 private:
  int m_count = 0;
  std::uint64_t m_handles[kMax];
};

}  // namespace detail

// ---- point-to-point -------------------------------------------------------------

struct Send {
  std::uint64_t m_bytes;
  std::int32_t m_peer;
  void before(Call&, std::uint64_t bytes, int dest, MPI_Comm comm) {
    m_bytes = bytes;
    m_peer = world_peer(dest, comm);
  }
  void after(Call& call, int) { call.record(m_bytes, m_peer); }
};

struct Recv {
  PendingOp m_op;
  MPI_Comm m_comm;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  void before(Call&, std::uint64_t bytes, int source, MPI_Comm comm, MPI_Status*& status) {
    m_op = detail::pending(bytes, source, comm, true, false);
    m_comm = comm;
    // ANY_SOURCE needs the status to name the sender, even if the caller ignores it.
    if (m_op.peer == kPeerFromStatus && status == MPI_STATUS_IGNORE) status = &m_own_status;
    m_status = status;
  }
  void after(Call& call, int rc) {
    call.record(m_op.bytes,
                rc == MPI_SUCCESS ? detail::peer_from_status(m_op, m_status, m_comm) : -1);
  }
};

template <bool kReceive, bool kPersistent>
struct StartP2P {
  PendingOp m_op;
  MPI_Comm m_comm;
  MPI_Request* m_request;
  void before(Call&, std::uint64_t bytes, int peer, MPI_Comm comm, MPI_Request* request) {
    m_op = detail::pending(bytes, peer, comm, kReceive, kPersistent);
    m_comm = comm;
    m_request = request;
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

struct Start {
  PendingOp m_op;
  void before(Call&, MPI_Request* request) {
    HandleTable* table = detail::requests();
    auto found = table ? table->find(handle_key(*request)) : std::nullopt;
    m_op = found ? *found : PendingOp{};
  }
  void after(Call& call, int) { call.record(m_op.bytes, m_op.peer < 0 ? -1 : m_op.peer); }
};

struct Startall {
  void before(Call&, int, MPI_Request*) {}
  void after(Call& call, int) { call.record(0, -1); }
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
  void before(Call&, int source, MPI_Comm comm, MPI_Status*& status) {
    m_op = detail::pending(0, source, comm, true, false);
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
  void before(Call& call, int source, MPI_Comm comm, int* flag, MPI_Status*& status) {
    m_probe.before(call, source, comm, status);
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

// A matched probe remembers the sender for the MPI_Mrecv/MPI_Imrecv of its message.
struct Mprobe {
  Probe m_probe;
  MPI_Message* m_message;
  void before(Call& call, int source, MPI_Comm comm, MPI_Message* message, MPI_Status*& status) {
    m_probe.before(call, source, comm, status);
    m_message = message;
  }
  void after(Call& call, int rc) {
    m_probe.after(call, rc);
    if (rc == MPI_SUCCESS && *m_message != MPI_MESSAGE_NULL) {
      PendingOp op;
      op.peer = m_probe.peer();
      detail::track(detail::messages(), handle_key(*m_message), op);
    }
  }
};

struct Improbe {
  Mprobe m_mprobe;
  int* m_flag;
  void before(Call& call, int source, MPI_Comm comm, int* flag, MPI_Message* message,
              MPI_Status*& status) {
    m_mprobe.before(call, source, comm, message, status);
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

inline std::int32_t take_message_peer(MPI_Message message) {
  HandleTable* table = detail::messages();
  if (table == nullptr) return -1;
  auto found = table->find(handle_key(message));
  if (!found) return -1;
  table->erase(handle_key(message));
  return found->peer;
}

struct Mrecv {
  std::uint64_t m_bytes;
  std::int32_t m_peer;
  void before(Call&, std::uint64_t bytes, MPI_Message* message, MPI_Status*&) {
    m_bytes = bytes;
    m_peer = take_message_peer(*message);
  }
  void after(Call& call, int) { call.record(m_bytes, m_peer); }
};

struct Imrecv {
  PendingOp m_op;
  MPI_Request* m_request;
  void before(Call&, std::uint64_t bytes, MPI_Message* message, MPI_Request* request) {
    m_op = PendingOp{};
    m_op.bytes = bytes;
    m_op.receive = true;
    m_op.peer = take_message_peer(*message);
    m_request = request;
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

inline void record_completed_set(Call& call, detail::RequestSnapshot& snapshot, const int* indices,
                                 int completed) {
  if (completed == 1) {
    const PendingOp op = snapshot.complete(indices ? indices[0] : 0);
    call.record(op.bytes, op.peer == kPeerFromStatus ? -1 : op.peer);
    return;
  }
  std::uint64_t received = 0;
  for (int i = 0; i < completed; ++i) {
    const PendingOp op = snapshot.complete(indices ? indices[i] : i);
    if (op.receive) received += op.bytes;
  }
  call.record(received, -1);
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
  void before(Call&, std::uint64_t bytes, int root, MPI_Comm comm) {
    m_bytes = bytes;
    m_peer = root == kNoRoot ? -1 : world_peer(root, comm);
  }
  void after(Call& call, int) { call.record(m_bytes, m_peer); }
};

template <bool kPersistent>
struct StartColl {
  Coll m_coll;
  MPI_Request* m_request;
  void before(Call& call, std::uint64_t bytes, int root, MPI_Comm comm, MPI_Request* request) {
    m_coll.before(call, bytes, root, comm);
    m_request = request;
  }
  void after(Call& call, int rc) {
    m_coll.after(call, rc);
    if (rc == MPI_SUCCESS) {
      PendingOp op;
      op.bytes = m_coll.m_bytes;
      op.peer = m_coll.m_peer;
      op.persistent = kPersistent;
      detail::track(detail::requests(), handle_key(*m_request), op);
    }
  }
};
using Icoll = StartColl<false>;
using CollInit = StartColl<true>;

// ---- communicators, datatypes, everything else --------------------------------------

// A new or freed communicator handle may be a reused one: drop what was cached
// for it, and let its first use rebuild the translation.
struct CommCreate {
  MPI_Comm* m_comm;
  void before(Call&, MPI_Comm* comm) { m_comm = comm; }
  void after(Call& call, int rc) {
    call.record(0, -1);
    Context* context = Context::current();
    if (rc == MPI_SUCCESS && context) context->comms().forget(handle_key(*m_comm));
  }
};

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
