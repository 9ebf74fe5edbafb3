#pragma once
// Everything else: one-sided communication, file I/O, communicators, datatypes, and calls recorded
// by time only. One struct per kind of mpi_functions.def; what before() and after() do: hooks.hpp.

#include "profiler/wrappers/hooks/common.hpp"
#include "profiler/wrappers/hooks/point_to_point.hpp"  // RequestOther: I/O requests are recorded as such

namespace mpidle::profiler::hooks {

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
