#pragma once
// Completions: Wait, Test and their any/all/some forms, one record per request finished.
// One struct per kind of mpi_functions.def; what before() and after() do: hooks.hpp.

#include "profiler/wrappers/hooks/common.hpp"

namespace mpidle::profiler::hooks {

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

}  // namespace mpidle::profiler::hooks
