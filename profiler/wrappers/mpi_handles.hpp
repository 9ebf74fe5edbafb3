#pragma once
// What the wrappers need to know about MPI handles, cheaply: a communicator's
// members as world ranks (cached per communicator) and a datatype's size (cached
// per thread). The slow paths run MPI queries, outside the timed interval.

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "profiler/core/comm_table.hpp"
#include "profiler/runtime/context.hpp"
#include "profiler/wrappers/status_count.h"

namespace mpidle::profiler {

inline constexpr int kNoRoot = -32768;

namespace detail {
// Bumped whenever a datatype is created or freed (a freed handle may come back
// as another type): cached sizes of an older generation are looked up again.
inline constinit std::atomic<std::uint32_t> g_type_generation{1};
// This process' world rank, for MPI_COMM_SELF (set when the profile starts).
inline constinit std::int32_t g_world_rank = -1;
}  // namespace detail

// MPI handles are integers in MPICH and pointers in Open MPI.
template <typename Handle>
std::uint64_t handle_key(Handle h) {
  if constexpr (std::is_pointer_v<Handle>) {
    return reinterpret_cast<std::uintptr_t>(h);
  } else {
    return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<Handle>>(h));
  }
}

CommInfo* build_comm_info(MPI_Comm comm);
CommInfo* build_win_info(MPI_Win win);
std::uint64_t type_size_slow(MPI_Datatype type, TypeSizeSlot& slot);

// received_bytes: the bytes a completed receive got, from its status; `fallback`
// (the posted buffer) when the status has no count. Called behind the second
// clock read. was_cancelled: whether the operation behind a completed status was
// cancelled. Inline where the build knows the status' fields: loads, no call.
#ifdef MPIDLE_STATUS_COUNT_FIELD
inline std::uint64_t received_bytes(const MPI_Status* status, std::uint64_t fallback) {
  if (status == nullptr || status == MPI_STATUS_IGNORE) return fallback;
  const std::int64_t count = mpidle_status_count_bytes(status);
  return count < 0 ? fallback : static_cast<std::uint64_t>(count);
}
inline bool was_cancelled(const MPI_Status* status) {
  return status != nullptr && status != MPI_STATUS_IGNORE && mpidle_status_cancelled(status) != 0;
}
#else
std::uint64_t received_bytes(const MPI_Status* status, std::uint64_t fallback);
bool was_cancelled(const MPI_Status* status);
#endif

inline CommInfo* comm_info(MPI_Comm comm) {
  Context* context = Context::current();
  if (context == nullptr) return nullptr;
  CommInfo* info = context->comms().find(handle_key(comm));
  return info ? info : build_comm_info(comm);
}

inline CommInfo* win_info(MPI_Win win) {
  Context* context = Context::current();
  if (context == nullptr) return nullptr;
  CommInfo* info = context->windows().find(handle_key(win));
  return info ? info : build_win_info(win);
}

// Another communicator's translation, out of line.
[[gnu::noinline]] inline std::int32_t world_peer_of_other(int local, MPI_Comm comm) {
  const CommInfo* info = comm_info(comm);
  return info ? info->world_rank(local) : -1;
}

// World rank of `local` in `comm`; -1 for MPI_PROC_NULL, MPI_ANY_SOURCE and the like.
// The predefined communicators are inlined into every wrapper.
[[gnu::always_inline]] inline std::int32_t world_peer(int local, MPI_Comm comm) {
  if (local < 0) return -1;
  if (comm == MPI_COMM_WORLD) return local;
  if (comm == MPI_COMM_SELF && detail::g_world_rank >= 0) {
    return local == 0 ? detail::g_world_rank : -1;
  }
  return world_peer_of_other(local, comm);
}

[[gnu::always_inline]] inline std::uint64_t type_size(MPI_Datatype type) {
  ThreadState* state = thread_state();
  if (state == nullptr) return 0;
  TypeSizeSlot& slot = state->type_size_slot(handle_key(type));
  if (slot.handle == handle_key(type) &&
      slot.generation == detail::g_type_generation.load(std::memory_order_relaxed)) {
    return slot.size;
  }
  return type_size_slow(type, slot);
}

// Inlined: evaluated in every wrapper that moves data.
template <typename Count>
[[gnu::always_inline]] inline std::uint64_t bytes_of(Count count, MPI_Datatype type) {
  if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
  return static_cast<std::uint64_t>(count) * type_size(type);
}

template <typename Count>
std::uint64_t bytes_of_sum(const Count* counts, MPI_Datatype type, MPI_Comm comm) {
  const CommInfo* info = counts ? comm_info(comm) : nullptr;
  if (info == nullptr) return 0;
  std::uint64_t total = 0;
  for (int i = 0; i < info->size(); ++i) total += counts[i] > 0 ? counts[i] : 0;
  return total * (type == MPI_DATATYPE_NULL ? 0 : type_size(type));
}

template <typename Count>
std::uint64_t bytes_of_sumw(const Count* counts, const MPI_Datatype* types, MPI_Comm comm) {
  const CommInfo* info = counts && types ? comm_info(comm) : nullptr;
  if (info == nullptr) return 0;
  std::uint64_t total = 0;
  for (int i = 0; i < info->size(); ++i) total += bytes_of(counts[i], types[i]);
  return total;
}

// Neighborhood collectives: one count per out-neighbour of the topology.
template <typename Count>
std::uint64_t bytes_of_neighbor_sum(const Count* counts, MPI_Datatype type, MPI_Comm comm) {
  const CommInfo* info = counts ? comm_info(comm) : nullptr;
  if (info == nullptr || type == MPI_DATATYPE_NULL) return 0;
  std::uint64_t total = 0;
  for (int i = 0; i < info->out_degree(); ++i) total += counts[i] > 0 ? counts[i] : 0;
  return total * type_size(type);
}

template <typename Count>
std::uint64_t bytes_of_neighbor_sumw(const Count* counts, const MPI_Datatype* types,
                                     MPI_Comm comm) {
  const CommInfo* info = counts && types ? comm_info(comm) : nullptr;
  if (info == nullptr) return 0;
  std::uint64_t total = 0;
  for (int i = 0; i < info->out_degree(); ++i) total += bytes_of(counts[i], types[i]);
  return total;
}

}  // namespace mpidle::profiler
