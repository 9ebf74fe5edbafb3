#include "profiler/wrappers/mpi_handles.hpp"

#include <vector>

#include "profiler/wrappers/real_function.hpp"
#include "profiler/wrappers/status_count.h"

namespace mpidle::profiler {
namespace {
RealFunction<decltype(&PMPI_Comm_test_inter)> real_comm_test_inter{"PMPI_Comm_test_inter"};
RealFunction<decltype(&PMPI_Comm_remote_group)> real_comm_remote_group{"PMPI_Comm_remote_group"};
RealFunction<decltype(&PMPI_Group_size)> real_group_size{"PMPI_Group_size"};
RealFunction<decltype(&PMPI_Group_translate_ranks)> real_group_translate_ranks{
    "PMPI_Group_translate_ranks"};
RealFunction<decltype(&PMPI_Type_size_x)> real_type_size_x{"PMPI_Type_size_x"};
RealFunction<decltype(&PMPI_Topo_test)> real_topo_test{"PMPI_Topo_test"};
RealFunction<decltype(&PMPI_Cartdim_get)> real_cartdim_get{"PMPI_Cartdim_get"};
RealFunction<decltype(&PMPI_Graph_neighbors_count)> real_graph_neighbors_count{
    "PMPI_Graph_neighbors_count"};
RealFunction<decltype(&PMPI_Dist_graph_neighbors_count)> real_dist_graph_neighbors_count{
    "PMPI_Dist_graph_neighbors_count"};
RealFunction<decltype(&PMPI_Win_get_group)> real_win_get_group{"PMPI_Win_get_group"};
#ifndef MPIDLE_STATUS_COUNT_FIELD
RealFunction<decltype(&PMPI_Get_elements_x)> real_get_elements_x{"PMPI_Get_elements_x"};
RealFunction<decltype(&PMPI_Test_cancelled)> real_test_cancelled{"PMPI_Test_cancelled"};
#endif

// The members of `group` as world ranks (-1 for processes outside the world). The
// world is mpidle's own communicator: MPI_COMM_WORLD does not exist in a program
// that entered MPI through a session.
std::vector<std::int32_t> world_ranks_of(const Context& context, MPI_Group group) {
  int n = 0;
  call_real(real_group_size, group, &n);
  std::vector<int> local(static_cast<std::size_t>(n)), world(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) local[static_cast<std::size_t>(i)] = i;
  MPI_Group world_group = MPI_GROUP_NULL;
  PMPI_Comm_group(context.own_comm(), &world_group);
  call_real(real_group_translate_ranks, group, n, local.data(), world_group, world.data());
  PMPI_Group_free(&world_group);
  std::vector<std::int32_t> ranks(world.begin(), world.end());
  for (auto& r : ranks) r = r == MPI_UNDEFINED ? -1 : r;
  return ranks;
}

int out_degree_of(MPI_Comm comm, int rank) {
  int topology = MPI_UNDEFINED;
  if (call_real(real_topo_test, comm, &topology) != MPI_SUCCESS) return -1;
  int n = -1;
  if (topology == MPI_CART) {
    int dims = 0;
    if (call_real(real_cartdim_get, comm, &dims) == MPI_SUCCESS) n = 2 * dims;
  } else if (topology == MPI_GRAPH) {
    if (call_real(real_graph_neighbors_count, comm, rank, &n) != MPI_SUCCESS) n = -1;
  } else if (topology == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    if (call_real(real_dist_graph_neighbors_count, comm, &in, &out, &weighted) == MPI_SUCCESS) {
      n = out;
    }
  }
  return n;
}

CommInfo* translate(Context& context, MPI_Comm comm) {
  // Intercommunicator ranks name members of the remote group.
  int inter = 0;
  if (call_real(real_comm_test_inter, comm, &inter) != MPI_SUCCESS) return nullptr;
  MPI_Group group = MPI_GROUP_NULL;
  const int rc =
      inter ? call_real(real_comm_remote_group, comm, &group) : PMPI_Comm_group(comm, &group);
  if (rc != MPI_SUCCESS) return nullptr;
  std::vector<std::int32_t> ranks = world_ranks_of(context, group);
  PMPI_Group_free(&group);
  const auto n = static_cast<std::int32_t>(ranks.size());
  int local_size = n;
  if (inter) PMPI_Comm_size(comm, &local_size);
  const std::int32_t shape = inter ? -(local_size + n) : n;
  int my_rank = -1;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == context.rank() && !inter) my_rank = static_cast<int>(i);
  }
  const int degree = inter ? -1 : out_degree_of(comm, my_rank);
  return context.comms().insert(handle_key(comm), ranks,
                                context.comm_id(comm == MPI_COMM_WORLD, ranks), my_rank, shape,
                                degree);
}

}  // namespace

CommInfo* build_comm_info(MPI_Comm comm) {
  Context* context = Context::current();
  if (context == nullptr || comm == MPI_COMM_NULL) return nullptr;
  // Runs inside a wrapper: nothing may propagate into the application's C frames.
  try {
    return translate(*context, comm);
  } catch (...) {
    return nullptr;
  }
}

CommInfo* build_win_info(MPI_Win win) {
  Context* context = Context::current();
  if (context == nullptr || win == MPI_WIN_NULL) return nullptr;
  try {
    MPI_Group group = MPI_GROUP_NULL;
    if (call_real(real_win_get_group, win, &group) != MPI_SUCCESS) return nullptr;
    std::vector<std::int32_t> ranks = world_ranks_of(*context, group);
    PMPI_Group_free(&group);
    const auto n = static_cast<std::int32_t>(ranks.size());
    return context->windows().insert(handle_key(win), std::move(ranks), 0, -1, n);
  } catch (...) {
    return nullptr;
  }
}

std::uint64_t type_size_slow(MPI_Datatype type, TypeSizeSlot& slot) {
  MPI_Count size = 0;
  if (call_real(real_type_size_x, type, &size) != MPI_SUCCESS || size < 0 || size == MPI_UNDEFINED)
    size = 0;
  slot.handle = handle_key(type);
  slot.generation = detail::g_type_generation.load(std::memory_order_relaxed);
  slot.size = static_cast<std::uint64_t>(size);
  return slot.size;
}

#ifndef MPIDLE_STATUS_COUNT_FIELD
// The portable calls, where the build found no status field (mpi_handles.hpp).
std::uint64_t received_bytes(const MPI_Status* status, std::uint64_t fallback) {
  if (status == nullptr || status == MPI_STATUS_IGNORE) return fallback;
  // Counted in MPI_BYTE: every MPI stores a received message's size in bytes.
  MPI_Count count = MPI_UNDEFINED;
  if (call_real(real_get_elements_x, status, MPI_BYTE, &count) != MPI_SUCCESS) return fallback;
  if (count == MPI_UNDEFINED) return fallback;
  return count < 0 ? fallback : static_cast<std::uint64_t>(count);
}

bool was_cancelled(const MPI_Status* status) {
  if (status == nullptr || status == MPI_STATUS_IGNORE) return false;
  int flag = 0;
  return call_real(real_test_cancelled, status, &flag) == MPI_SUCCESS && flag != 0;
}
#endif

}  // namespace mpidle::profiler
