#pragma once
// What each kind of MPI call records. The generated wrappers call, per kind K:
//   hooks::K hook; hook.before(call, <roles of K>); <timed call>; hook.after(call, rc);
// before() runs ahead of the first clock read and after() behind the second, so
// lookups here never count as MPI time. Role order per kind: gen/gen_wrappers.py.
// In trace mode the hooks also say what the call's trace record means
// (call.trace()), and completion calls add one record per request they finish.
//
// Receives are classed by the bytes they received (their status), not by the
// buffer they posted: a program that posts 1 MiB and receives 8 B must not put
// both sizes in one minimum. Where the program ignores statuses, mpidle passes
// its own to MPI.

#include <mpi.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>

#include "profiler/core/handle_table.hpp"
#include "profiler/wrappers/call.hpp"
#include "profiler/wrappers/mpi_handles.hpp"

namespace mpidle::profiler::hooks {

using model::CollectiveKind;
using model::TraceRole;

// MPI_Init/MPI_Init_thread and MPI-4 sessions open MPI; the profile starts at the
// first of them and is written when the last one ends (MPI_Finalize or the last
// MPI_Session_finalize).
void on_init(int rc);
void on_finalize();
void on_session_init(int rc);
void on_session_finalize();
void on_abort();  // MPI_Abort: this rank's partial profile, before the job ends
// MPI_Pcontrol: by MPIDLE_PCONTROL, mpiP's pause (0) and resume (any other level),
// IPM's regions (1 opens, −1 closes the region named by the next argument, read
// only then), or nothing.
void on_pcontrol(void* callsite, int level, std::va_list names);
// Code regions (regions.hpp), from mpidle_region_begin/end and MPI_Pcontrol.
void open_region(const char* name) noexcept;
void close_region(const char* name) noexcept;
void on_type_change();

namespace detail {

inline HandleTable* requests() {
  Context* context = Context::current();
  return context ? &context->requests() : nullptr;
}

inline HandleTable* messages() {
  Context* context = Context::current();
  return context ? &context->messages() : nullptr;
}

inline std::uint32_t comm_id(MPI_Comm comm) {
  const CommInfo* info = comm_info(comm);
  return info ? info->id() : 0;
}

inline std::uint32_t next_serial() {
  Context* context = Context::current();
  return context ? context->next_request_serial() : 0;
}

// A receive's or probe's posted source as a world rank: kPeerFromStatus for
// MPI_ANY_SOURCE (known only from the status), -1 for MPI_PROC_NULL.
[[gnu::always_inline]] inline std::int32_t world_source(int source, MPI_Comm comm) {
  return source == MPI_ANY_SOURCE ? kPeerFromStatus : world_peer(source, comm);
}

// The sender named by a status of a receive or probe on `comm`.
// `posted`: the world rank posted, or kPeerFromStatus.
inline std::int32_t peer_from_status(std::int32_t posted, const MPI_Status* status, MPI_Comm comm) {
  if (posted != kPeerFromStatus) return posted;
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

inline bool track(HandleTable* table, std::uint64_t handle, const PendingOp& op) {
  return table && table->put(handle, op);
}

// A status of our own where the program passed MPI_STATUS_IGNORE.
inline MPI_Status* own_status_if_ignored(MPI_Status* status, MPI_Status& own) {
  return status == MPI_STATUS_IGNORE ? &own : status;
}

// Room for `count` statuses where the program passed MPI_STATUSES_IGNORE: `inline_room`
// (kInline of them, in the hook) for a polling loop's few requests, else the
// thread's scratch room.
inline constexpr int kInline = 8;
[[gnu::noinline]] inline MPI_Status* own_statuses_from_scratch(MPI_Status* statuses, int count) {
  ThreadState* state = thread_state();
  try {
    MPI_Status* own =
        state ? state->scratch<MPI_Status>(1, static_cast<std::size_t>(count)) : nullptr;
    return own ? own : statuses;
  } catch (...) {
    return statuses;  // no room: completions of wildcard receives lose their peer
  }
}
inline MPI_Status* own_statuses_if_ignored(MPI_Status* statuses, int count,
                                           MPI_Status (&inline_room)[kInline]) {
  if (statuses != MPI_STATUSES_IGNORE || count <= 0) return statuses;
  return count <= kInline ? inline_room : own_statuses_from_scratch(statuses, count);
}

// What one completed request moved, and how its completion is traced. Reads the
// request table's entry in place.
struct Completed {
  const PendingOp* op = nullptr;  // null: not a request mpidle knows
  const MPI_Status* status = nullptr;
  bool cancelled = false;

  Completed() = default;
  Completed(const PendingOp* known, const MPI_Status* s) : op(known), status(s) {
    cancelled = op != nullptr && op->cancel_requested && was_cancelled(status);
  }
  // A receive's bytes, from its status: asked of MPI once (the call's record and
  // its trace record both need them).
  std::uint64_t received() const {
    if (m_received == kNotAsked) m_received = received_bytes(status, op->posted_bytes);
    return m_received;
  }
  // Bytes the request sent plus, for a receive, the bytes it received.
  std::uint64_t bytes() const {
    if (op == nullptr || cancelled) return 0;
    return op->bytes + (op->receive ? received() : 0);
  }
  std::int32_t peer() const { return op == nullptr || cancelled ? -1 : peer_of(*op, status); }

 private:
  static constexpr std::uint64_t kNotAsked = ~std::uint64_t{0};
  mutable std::uint64_t m_received = kNotAsked;
};

// Trace mode: the record of one completed receive, send, non-blocking collective or
// cancelled request. A send's completion names no peer (its Isend record does): the
// analysis finds the call that completed an Isend by its serial, where a rendezvous
// send waits for its receive's post.
inline void trace_completion(Call& call, const Completed& c) {
  if (!tracing() || c.op == nullptr) return;
  const PendingOp& op = *c.op;
  if (c.cancelled) {
    if (!op.send && !op.receive) return;
    TraceInfo info;
    info.role = TraceRole::cancelled;
    info.comm = op.comm_id;
    info.sequence = op.serial;
    call.trace_extra(info, -1, 0);
    return;
  }
  if (!op.receive && !op.send && op.collective_kind == 0) return;
  TraceInfo info;
  info.role = TraceRole::completion;
  info.comm = op.comm_id;
  info.sequence = op.serial;
  info.kind = static_cast<CollectiveKind>(op.collective_kind);
  info.root = op.root;
  info.tag = op.receive ? tag_of(op.tag, c.status) : -1;
  call.trace_extra(info, op.receive ? c.peer() : -1, op.receive ? c.received() : op.bytes);
}

// Forgets a completed request's entry (a persistent one stays until
// MPI_Request_free); a wildcard receive's communicator entry is released with it.
inline void forget_completed(HandleTable& table, const HandleTable::Entry& e) {
  if (!e) return;
  const CommInfo* comm = e.op().comm;
  if (table.complete(e) && comm != nullptr) comm->release();
}

// Requests handed to a completion call, read before MPI nulls them. Up to kInline
// requests (a polling loop's few) are kept inline; more go to the thread's scratch
// room (no fixed cap).
class RequestSnapshot {
 public:
  RequestSnapshot() = default;
  RequestSnapshot(const RequestSnapshot&) = delete;  // m_handles may point inside
  RequestSnapshot& operator=(const RequestSnapshot&) = delete;

  void take(int count, const MPI_Request* requests) {
    m_count = count > 0 && requests != nullptr ? count : 0;
    m_handles = m_inline;
    if (m_count > kInline) take_into_scratch();
    for (int i = 0; i < m_count; ++i) m_handles[i] = handle_key(requests[i]);
  }

  // The table entry of the request at `index`: empty when unknown.
  HandleTable::Entry entry(const HandleTable& table, int index) const {
    if (index < 0 || index >= m_count) return HandleTable::Entry{};
    return table.locate(m_handles[index]);
  }
  int count() const { return m_count; }
  std::uint64_t handle(int i) const { return m_handles[i]; }

 private:
  [[gnu::noinline]] void take_into_scratch() {
    ThreadState* state = thread_state();
    try {
      m_handles =
          state ? state->scratch<std::uint64_t>(0, static_cast<std::size_t>(m_count)) : nullptr;
    } catch (...) {
      m_handles = nullptr;
    }
    if (m_handles == nullptr) {
      m_handles = m_inline;
      m_count = 0;
    }
  }

  int m_count = 0;
  std::uint64_t m_inline[kInline];
  std::uint64_t* m_handles = m_inline;
};

// One completed request (Wait, Test, Waitany, Testany): one probe of the table.
inline void record_completed_one(Call& call, const RequestSnapshot& snapshot, int index,
                                 const MPI_Status* status) {
  HandleTable* table = requests();
  const HandleTable::Entry e = table ? snapshot.entry(*table, index) : HandleTable::Entry{};
  const Completed done(e ? &e.op() : nullptr, status);
  call.record(done.bytes(), done.peer());
  trace_completion(call, done);
  if (table) forget_completed(*table, e);
}

// The untimed path of polls (Test family, Iprobe, Improbe; the wrappers take it
// when untimed_poll() says so). A poll's Untimed keeps only what the poll's own
// hook needs should the poll complete something, without a Call: the requests as
// they were before the call (MPI nulls those it completes), copied as they are
// and turned into keys only then; a status of its own where the program ignores
// it. before() is false where the inline room is too small (the wrapper then
// times the poll). The rare completion replays the poll's hook, out of line.
template <typename Hook, typename... Args>
[[gnu::noinline]] int complete_untimed_poll(MpiFn fn, void* callsite, int rc, Args... args) {
  CallScope scope;  // mpidle's own work: never recorded
  Call call(fn, callsite, Call::untimed);
  Hook hook;
  hook.before(call, args...);
  hook.after(call, rc);
  return rc;
}

// A status of its own where the program ignores it (own_status_if_ignored).
struct PolledStatus {
  MPI_Status* status;
  MPI_Status own;
  [[gnu::always_inline]] void take(MPI_Status*& program_status) {
    program_status = own_status_if_ignored(program_status, own);
    status = program_status;
  }
};

struct PolledRequests {
  int count;
  MPI_Request raw[kInline];
  // One jump and `n` moves: a loop here became a general inline memcpy.
  [[gnu::always_inline]] bool take(int n, const MPI_Request* requests) {
    static_assert(kInline == 8);
    count = requests != nullptr && n > 0 ? n : 0;
    switch (count) {
      default:
        return false;  // more than kInline
      case 8:
        raw[7] = requests[7];
        [[fallthrough]];
      case 7:
        raw[6] = requests[6];
        [[fallthrough]];
      case 6:
        raw[5] = requests[5];
        [[fallthrough]];
      case 5:
        raw[4] = requests[4];
        [[fallthrough]];
      case 4:
        raw[3] = requests[3];
        [[fallthrough]];
      case 3:
        raw[2] = requests[2];
        [[fallthrough]];
      case 2:
        raw[1] = requests[1];
        [[fallthrough]];
      case 1:
        raw[0] = requests[0];
        [[fallthrough]];
      case 0:
        return true;
    }
  }
};

// Testall's and Testsome's: the requests and, where the program ignores them,
// statuses of its own (own_statuses_if_ignored: at most kInline, inline room).
struct PolledSet {
  PolledRequests requests;
  MPI_Status* statuses;
  MPI_Status own[kInline];
  [[gnu::always_inline]] bool take(int count, const MPI_Request* polled,
                                   MPI_Status*& program_statuses) {
    if (!requests.take(count, polled)) return false;
    program_statuses = own_statuses_if_ignored(program_statuses, requests.count, own);
    statuses = program_statuses;
    return true;
  }
};

}  // namespace detail

// ---- point-to-point -------------------------------------------------------------

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

// ---- probe and matched receive -------------------------------------------------------

// Probes are polled: they keep only the peer, not a whole PendingOp.
struct Probe {
  std::int32_t m_peer;  // world rank, or kPeerFromStatus for MPI_ANY_SOURCE
  MPI_Comm m_comm;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  void before(Call&, int source, int, MPI_Comm comm, MPI_Status*& status) {
    m_peer = detail::world_source(source, comm);
    m_comm = comm;
    status = detail::own_status_if_ignored(status, m_own_status);
    m_status = status;
  }
  // The posted peer, -1 when it is known only from a status.
  std::int32_t posted_peer() const { return m_peer == kPeerFromStatus ? -1 : m_peer; }
  std::int32_t peer() const { return detail::peer_from_status(m_peer, m_status, m_comm); }
  void after(Call& call, int rc) { call.record(0, rc == MPI_SUCCESS ? peer() : -1); }
};

struct Iprobe {
  Probe m_probe;
  int* m_flag;
  void before(Call& call, int source, int tag, MPI_Comm comm, int* flag, MPI_Status*& status) {
    m_probe.before(call, source, tag, comm, status);
    m_flag = flag;
  }
  // A poll that completed nothing stays inline (the timed path's common case); a
  // completion goes out of line.
  [[gnu::always_inline]] void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag) return call.record_incomplete(m_probe.posted_peer());
    completed(call, rc);
  }
  [[gnu::noinline]] void completed(Call& call, int rc) { m_probe.after(call, rc); }

  struct Untimed {
    int m_source;
    int m_tag;
    MPI_Comm m_comm;
    int* m_flag;
    detail::PolledStatus m_status;
    [[gnu::always_inline]] bool before(int source, int tag, MPI_Comm comm, int* flag,
                                       MPI_Status*& status) {
      m_source = source;
      m_tag = tag;
      m_comm = comm;
      m_flag = flag;
      m_status.take(status);
      return true;
    }
    bool nothing_completed(int rc) const { return rc == MPI_SUCCESS && !*m_flag; }
    std::int32_t peer() const {
      return m_source == MPI_ANY_SOURCE ? -1 : world_peer(m_source, m_comm);
    }
    [[gnu::noinline]] int completed(MpiFn fn, void* callsite, int rc) {
      return detail::complete_untimed_poll<Iprobe>(fn, callsite, rc, m_source, m_tag, m_comm,
                                                   m_flag, m_status.status);
    }
  };
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
      op.posted_bytes = received_bytes(m_probe.m_status, 0);
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
  [[gnu::always_inline]] void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag)
      return call.record_incomplete(m_mprobe.m_probe.posted_peer());
    completed(call, rc);
  }
  [[gnu::noinline]] void completed(Call& call, int rc) { m_mprobe.after(call, rc); }

  struct Untimed {
    Iprobe::Untimed m_iprobe;
    MPI_Message* m_message;
    [[gnu::always_inline]] bool before(int source, int tag, MPI_Comm comm, int* flag,
                                       MPI_Message* message, MPI_Status*& status) {
      m_message = message;
      return m_iprobe.before(source, tag, comm, flag, status);
    }
    bool nothing_completed(int rc) const { return m_iprobe.nothing_completed(rc); }
    std::int32_t peer() const { return m_iprobe.peer(); }
    [[gnu::noinline]] int completed(MpiFn fn, void* callsite, int rc) {
      const Iprobe::Untimed& p = m_iprobe;
      return detail::complete_untimed_poll<Improbe>(fn, callsite, rc, p.m_source, p.m_tag, p.m_comm,
                                                    p.m_flag, m_message, p.m_status.status);
    }
  };
};

inline PendingOp take_message(MPI_Message message) {
  HandleTable* table = detail::messages();
  if (table == nullptr) return PendingOp{};
  return table->take(handle_key(message)).value_or(PendingOp{});
}

struct Mrecv {
  PendingOp m_message;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  void before(Call& call, std::uint64_t posted, MPI_Message* message, MPI_Status*& status) {
    m_message = take_message(*message);
    // The probe saw the message's size; the posted buffer is the last resort.
    if (m_message.posted_bytes == 0) m_message.posted_bytes = posted;
    status = detail::own_status_if_ignored(status, m_own_status);
    m_status = status;
    if (tracing()) {
      call.trace().role = TraceRole::recv;
      call.trace().tag = m_message.tag;
      call.trace().comm = m_message.comm_id;
    }
  }
  void after(Call& call, int) {
    call.record(received_bytes(m_status, m_message.posted_bytes), m_message.peer);
  }
};

struct Imrecv {
  PendingOp m_op;
  MPI_Request* m_request;
  void before(Call& call, std::uint64_t posted, MPI_Message* message, MPI_Request* request) {
    m_op = take_message(*message);
    if (m_op.posted_bytes == 0) m_op.posted_bytes = posted;
    m_op.receive = true;
    m_request = request;
    if (tracing()) {
      m_op.serial = detail::next_serial();
      call.trace().role = TraceRole::irecv;
      call.trace().sequence = m_op.serial;
      call.trace().comm = m_op.comm_id;
      call.trace().tag = m_op.tag;
    }
  }
  void after(Call& call, int rc) {
    call.record(m_op.posted_bytes, m_op.peer);
    if (rc == MPI_SUCCESS) detail::track(detail::requests(), handle_key(*m_request), m_op);
  }
};

// ---- completion -------------------------------------------------------------------
// One completed request: its peer and bytes. Several: peer -1 and the sum of the
// bytes they sent and received.

struct Wait {
  detail::RequestSnapshot m_snapshot;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  void before(Call&, MPI_Request* request, MPI_Status*& status) {
    m_snapshot.take(1, request);
    status = detail::own_status_if_ignored(status, m_own_status);
    m_status = status;
  }
  void after(Call& call, int rc) {
    detail::record_completed_one(call, m_snapshot, rc == MPI_SUCCESS ? 0 : -1, m_status);
  }
};

struct Test {
  Wait m_wait;
  int* m_flag;
  void before(Call& call, MPI_Request* request, int* flag, MPI_Status*& status) {
    m_wait.before(call, request, status);
    m_flag = flag;
  }
  [[gnu::always_inline]] void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag) return call.record_incomplete(-1);
    completed(call, rc);
  }
  [[gnu::noinline]] void completed(Call& call, int rc) { m_wait.after(call, rc); }

  struct Untimed {
    MPI_Request m_request;
    int* m_flag;
    detail::PolledStatus m_status;
    [[gnu::always_inline]] bool before(MPI_Request* request, int* flag, MPI_Status*& status) {
      if (request == nullptr) return false;  // erroneous: MPI says so, timed
      m_request = *request;
      m_flag = flag;
      m_status.take(status);
      return true;
    }
    bool nothing_completed(int rc) const { return rc == MPI_SUCCESS && !*m_flag; }
    std::int32_t peer() const { return -1; }
    [[gnu::noinline]] int completed(MpiFn fn, void* callsite, int rc) {
      return detail::complete_untimed_poll<Test>(fn, callsite, rc, &m_request, m_flag,
                                                 m_status.status);
    }
  };
};

struct Waitany {
  detail::RequestSnapshot m_snapshot;
  MPI_Status m_own_status;
  MPI_Status* m_status;
  int* m_index;
  void before(Call&, int count, MPI_Request* requests, int* index, MPI_Status*& status) {
    m_snapshot.take(count, requests);
    status = detail::own_status_if_ignored(status, m_own_status);
    m_status = status;
    m_index = index;
  }
  void after(Call& call, int rc) {
    detail::record_completed_one(call, m_snapshot, rc == MPI_SUCCESS ? *m_index : -1, m_status);
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
  [[gnu::always_inline]] void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag) return call.record_incomplete(-1);
    completed(call, rc);
  }
  [[gnu::noinline]] void completed(Call& call, int rc) { m_waitany.after(call, rc); }

  struct Untimed {
    detail::PolledRequests m_requests;
    int* m_index;
    int* m_flag;
    detail::PolledStatus m_status;
    [[gnu::always_inline]] bool before(int count, MPI_Request* requests, int* index, int* flag,
                                       MPI_Status*& status) {
      if (!m_requests.take(count, requests)) return false;
      m_index = index;
      m_flag = flag;
      m_status.take(status);
      return true;
    }
    bool nothing_completed(int rc) const { return rc == MPI_SUCCESS && !*m_flag; }
    std::int32_t peer() const { return -1; }
    [[gnu::noinline]] int completed(MpiFn fn, void* callsite, int rc) {
      return detail::complete_untimed_poll<Testany>(
          fn, callsite, rc, m_requests.count, m_requests.raw, m_index, m_flag, m_status.status);
    }
  };
};

// Several requests (Waitall, Testall, Waitsome, Testsome). The i-th completed
// request is indices[i] (request i without indices), and its status is always
// statuses[i]: MPI fills Waitsome's statuses in completion order and Waitall's in
// request order.
inline void record_completed_set(Call& call, const detail::RequestSnapshot& snapshot,
                                 const int* indices, int completed, MPI_Status* statuses) {
  auto status_at = [&](int i) -> const MPI_Status* {
    return statuses == MPI_STATUSES_IGNORE ? nullptr : &statuses[i];
  };
  HandleTable* table = detail::requests();
  if (table == nullptr) {
    call.record(0, -1);
    return;
  }
  // Each request is looked up once (kept for the second pass, up to kInline of them)
  // and read in place. The call's record goes first (trace records of the requests
  // need its callsite), so the bytes are summed in a first pass, before the entries
  // are forgotten. Several requests may share one handle (MPICH gives every send
  // that completed at once the same one): each of them counts, and the entry is
  // forgotten once.
  HandleTable::Entry kept[detail::kInline];
  auto entry_of = [&](int i) { return snapshot.entry(*table, indices ? indices[i] : i); };
  std::uint64_t bytes = 0;
  std::int32_t peer = -1;
  for (int i = 0; i < completed; ++i) {
    const HandleTable::Entry e = entry_of(i);
    if (i < detail::kInline) kept[i] = e;
    if (!e) continue;
    const detail::Completed c(&e.op(), status_at(i));
    bytes += c.bytes();
    if (completed == 1) peer = c.peer();
  }
  call.record(bytes, peer);
  for (int i = 0; i < completed; ++i) {
    const HandleTable::Entry e = i < detail::kInline ? kept[i] : entry_of(i);
    if (!e) continue;
    if (tracing()) detail::trace_completion(call, detail::Completed(&e.op(), status_at(i)));
    detail::forget_completed(*table, e);
  }
}

struct Waitall {
  detail::RequestSnapshot m_snapshot;
  MPI_Status* m_statuses;
  MPI_Status m_own[detail::kInline];
  void before(Call&, int count, MPI_Request* requests, MPI_Status*& statuses) {
    m_snapshot.take(count, requests);
    statuses = detail::own_statuses_if_ignored(statuses, count, m_own);
    m_statuses = statuses;
  }
  void after(Call& call, int) {
    record_completed_set(call, m_snapshot, nullptr, m_snapshot.count(), m_statuses);
  }
};

struct Testall {
  Waitall m_waitall;
  int* m_flag;
  void before(Call& call, int count, MPI_Request* requests, int* flag, MPI_Status*& statuses) {
    m_waitall.before(call, count, requests, statuses);
    m_flag = flag;
  }
  [[gnu::always_inline]] void after(Call& call, int rc) {
    if (rc == MPI_SUCCESS && !*m_flag) return call.record_incomplete(-1);
    completed(call, rc);
  }
  [[gnu::noinline]] void completed(Call& call, int rc) { m_waitall.after(call, rc); }

  struct Untimed {
    detail::PolledSet m_set;
    int* m_flag;
    [[gnu::always_inline]] bool before(int count, MPI_Request* requests, int* flag,
                                       MPI_Status*& statuses) {
      m_flag = flag;
      return m_set.take(count, requests, statuses);
    }
    bool nothing_completed(int rc) const { return rc == MPI_SUCCESS && !*m_flag; }
    std::int32_t peer() const { return -1; }
    [[gnu::noinline]] int completed(MpiFn fn, void* callsite, int rc) {
      return detail::complete_untimed_poll<Testall>(fn, callsite, rc, m_set.requests.count,
                                                    m_set.requests.raw, m_flag, m_set.statuses);
    }
  };
};

struct Waitsome {
  detail::RequestSnapshot m_snapshot;
  int* m_outcount;
  int* m_indices;
  MPI_Status* m_statuses;
  MPI_Status m_own[detail::kInline];
  void before(Call&, int count, MPI_Request* requests, int* outcount, int* indices,
              MPI_Status*& statuses) {
    m_snapshot.take(count, requests);
    m_outcount = outcount;
    m_indices = indices;
    statuses = detail::own_statuses_if_ignored(statuses, count, m_own);
    m_statuses = statuses;
  }
  void after(Call& call, int rc) {
    const int n = rc == MPI_SUCCESS && *m_outcount != MPI_UNDEFINED ? *m_outcount : 0;
    if (n == 0 && rc == MPI_SUCCESS && *m_outcount == 0) {
      call.record_incomplete(-1);
      return;
    }
    record_completed_set(call, m_snapshot, m_indices, n, m_statuses);
  }
};
struct Testsome : Waitsome {
  struct Untimed {
    detail::PolledSet m_set;
    int* m_outcount;
    int* m_indices;
    [[gnu::always_inline]] bool before(int count, MPI_Request* requests, int* outcount,
                                       int* indices, MPI_Status*& statuses) {
      m_outcount = outcount;
      m_indices = indices;
      return m_set.take(count, requests, statuses);
    }
    // MPI_UNDEFINED (no active request) is recorded as a completion, as Waitsome's is.
    bool nothing_completed(int rc) const { return rc == MPI_SUCCESS && *m_outcount == 0; }
    std::int32_t peer() const { return -1; }
    [[gnu::noinline]] int completed(MpiFn fn, void* callsite, int rc) {
      return detail::complete_untimed_poll<Testsome>(fn, callsite, rc, m_set.requests.count,
                                                     m_set.requests.raw, m_outcount, m_indices,
                                                     m_set.statuses);
    }
  };
};

// ---- collectives --------------------------------------------------------------------
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

// ---- one-sided communication and file I/O ----------------------------------------

struct Rma {
  std::uint64_t m_bytes;
  std::int32_t m_peer;
  void before(Call&, std::uint64_t bytes, int target, MPI_Win win) {
    m_bytes = bytes;
    const CommInfo* info = target >= 0 ? win_info(win) : nullptr;
    m_peer = info ? info->world_rank(target) : -1;
  }
  void after(Call& call, int) { call.record(m_bytes, m_peer); }
};

struct RmaRequest {
  Rma m_rma;
  MPI_Request* m_request;
  void before(Call& call, std::uint64_t bytes, int target, MPI_Win win, MPI_Request* request) {
    m_rma.before(call, bytes, target, win);
    m_request = request;
  }
  void after(Call& call, int rc) {
    m_rma.after(call, rc);
    if (rc != MPI_SUCCESS) return;
    PendingOp op;
    op.peer = m_rma.m_peer;
    detail::track(detail::requests(), handle_key(*m_request), op);
  }
};

struct WinFree {
  std::uint64_t m_handle;
  void before(Call&, MPI_Win* win) { m_handle = handle_key(*win); }
  void after(Call& call, int) {
    call.record(0, -1);
    if (Context* context = Context::current()) context->windows().forget(m_handle);
  }
};

struct Io {
  std::uint64_t m_bytes;
  void before(Call&, std::uint64_t bytes) { m_bytes = bytes; }
  void after(Call& call, int) { call.record(m_bytes, -1); }
};

struct IoRequest {
  std::uint64_t m_bytes;
  MPI_Request* m_request;
  void before(Call&, std::uint64_t bytes, MPI_Request* request) {
    m_bytes = bytes;
    m_request = request;
  }
  void after(Call& call, int rc) {
    call.record(m_bytes, -1);
    if (rc != MPI_SUCCESS) return;
    PendingOp op;
    op.bytes = m_bytes;  // completes with the bytes it moved
    detail::track(detail::requests(), handle_key(*m_request), op);
  }
};

// ---- communicators, datatypes, everything else --------------------------------------

// A new or freed communicator handle may be a reused one: drop what was cached
// for it. In trace mode the new communicator's translation (and id) is built at
// once, in creation order, which is the same on every member.
struct CommCreate {
  MPI_Comm* m_comm;
  void before(Call&, MPI_Comm* comm) { m_comm = comm; }
  void after(Call& call, int rc) {
    call.record(0, -1);
    Context* context = Context::current();
    if (rc != MPI_SUCCESS || context == nullptr) return;
    context->comms().forget(handle_key(*m_comm));
    if (tracing() && *m_comm != MPI_COMM_NULL) build_comm_info(*m_comm);
  }
};

// Comm_idup: the handle is valid only once the request completes; its cache entry
// is dropped now and built on first use.
struct CommIcreate {
  MPI_Comm* m_comm;
  RequestOther m_request;
  void before(Call& call, MPI_Comm* comm, MPI_Request* request) {
    m_comm = comm;
    m_request.before(call, request);
  }
  void after(Call& call, int rc) {
    m_request.after(call, rc);
    Context* context = Context::current();
    if (rc == MPI_SUCCESS && context != nullptr) context->comms().forget(handle_key(*m_comm));
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
// Recorded as TimeOnly; the kind tells the catalog that the call can wait for other
// ranks (window and file synchronization), so its time above its baseline is wait.
using SyncOnly = TimeOnly;

}  // namespace mpidle::profiler::hooks
