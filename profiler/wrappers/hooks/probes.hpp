#pragma once
// Probes and matched receives (Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv).
// One struct per kind of mpi_functions.def; what before() and after() do: hooks.hpp.

#include "profiler/wrappers/hooks/common.hpp"

namespace mpidle::profiler::hooks {

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

}  // namespace mpidle::profiler::hooks
