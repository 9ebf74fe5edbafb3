#include "mpi_handles.hpp"

#include <vector>

#include "real_function.hpp"

namespace mpidle::profiler {
namespace {
RealFunction<decltype(&PMPI_Comm_test_inter)> real_comm_test_inter{"PMPI_Comm_test_inter"};
RealFunction<decltype(&PMPI_Comm_remote_group)> real_comm_remote_group{"PMPI_Comm_remote_group"};
RealFunction<decltype(&PMPI_Group_size)> real_group_size{"PMPI_Group_size"};
RealFunction<decltype(&PMPI_Group_translate_ranks)> real_group_translate_ranks{
    "PMPI_Group_translate_ranks"};
RealFunction<decltype(&PMPI_Type_size_x)> real_type_size_x{"PMPI_Type_size_x"};
}  // namespace

namespace {

CommInfo* translate(Context& context, MPI_Comm comm) {
  // Intercommunicator ranks name members of the remote group.
  int inter = 0;
  if (call_real(real_comm_test_inter, comm, &inter) != MPI_SUCCESS) return nullptr;
  MPI_Group group = MPI_GROUP_NULL, world_group = MPI_GROUP_NULL;
  const int rc =
      inter ? call_real(real_comm_remote_group, comm, &group) : PMPI_Comm_group(comm, &group);
  if (rc != MPI_SUCCESS) return nullptr;
  int n = 0;
  call_real(real_group_size, group, &n);
  std::vector<int> local(static_cast<std::size_t>(n)), world(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) local[static_cast<std::size_t>(i)] = i;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  call_real(real_group_translate_ranks, group, n, local.data(), world_group, world.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world_group);
  std::vector<std::int32_t> ranks(world.begin(), world.end());
  int my_rank = -1;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == MPI_UNDEFINED) ranks[i] = -1;
    if (ranks[i] == context.rank() && !inter) my_rank = static_cast<int>(i);
  }
  return context.comms().insert(handle_key(comm), ranks,
                                context.comm_id(comm == MPI_COMM_WORLD, ranks), my_rank);
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

std::uint64_t type_size_slow(MPI_Datatype type, TypeSizeSlot& slot) {
  MPI_Count size = 0;
  if (call_real(real_type_size_x, type, &size) != MPI_SUCCESS || size < 0 || size == MPI_UNDEFINED)
    size = 0;
  Context* context = Context::current();
  slot.handle = handle_key(type);
  slot.generation = context ? context->type_generation().load(std::memory_order_relaxed) : 0;
  slot.size = static_cast<std::uint64_t>(size);
  return slot.size;
}

}  // namespace mpidle::profiler
