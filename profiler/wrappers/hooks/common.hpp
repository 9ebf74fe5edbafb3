#pragma once
// What the hooks of every family share: the entry points of the runtime that
// wrappers call (init, finalize, Pcontrol, regions) and the helpers in detail::.
// The hooks themselves: hooks.hpp.

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

}  // namespace mpidle::profiler::hooks
