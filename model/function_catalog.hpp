#pragma once
// What each MPI function is, without MPI: generated at build time from the function
// table the wrappers come from (profiler/wrappers/mpi_functions.def, gen/gen_catalog.py), so
// that analysis, export and reports ask the catalog instead of matching names.

#include <cstdint>
#include <string_view>

#include "trace_events.hpp"

namespace mpidle::model {

enum class FunctionGroup : std::uint8_t {
  environment,     // Init, Finalize, Pcontrol
  point_to_point,  // sends and receives, blocking, non-blocking or persistent
  request,         // Start, Request_free, Cancel, ...
  probe,           // Probe, Iprobe, Mprobe, Improbe
  completion,      // Wait*, Test*
  collective,      // blocking, non-blocking and persistent collectives
  communicator,    // creation and freeing
  rma,
  io,
  other,  // time only
};

// The operation of a collective, whatever its form: MPI_Allreduce, MPI_Iallreduce
// and MPI_Allreduce_init are all `allreduce`.
enum class CollectiveOperation : std::uint8_t {
  none,
#define MPIDLE_OPERATION(name) name,
#include "mpi_collective_operations.inc"
#undef MPIDLE_OPERATION
};

struct FunctionInfo {
  std::string_view name;  // "MPI_Allreduce"
  FunctionGroup group = FunctionGroup::other;
  std::string_view kind;  // the table's hook kind: "send", "icoll", "waitall", ...
  CollectiveKind dependency = CollectiveKind::none;
  CollectiveOperation operation = CollectiveOperation::none;
  // Whether the call can wait for another rank (a blocking receive, a Wait, a
  // blocking collective, a fence, ...); a local call's time above its baseline is
  // variation (Comm_rank, Isend, Test*, ...).
  bool can_wait = true;
};

// The catalog's entry for an MPI function (also its NAME_c large-count form), or
// nullptr for a name the table does not hold.
const FunctionInfo* find_function(std::string_view name);

// Wait*, Test*: the calls that complete requests.
bool is_completion(std::string_view name);
// Test*: a completion call that returns whether or not its requests completed.
bool is_poll(std::string_view name);
// True for a function that can wait, and for a name the catalog does not know.
bool can_wait(std::string_view name);
// A barrier in any form (no data: its waiting is its own wait-state pattern).
bool is_barrier(std::string_view name);

std::string_view operation_name(CollectiveOperation operation);  // "allreduce"

}  // namespace mpidle::model
