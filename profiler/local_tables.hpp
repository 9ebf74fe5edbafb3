#pragma once
// Folds every thread's tables of this process into one rank's model::RankData.

#include <vector>

#include "clock.hpp"
#include "model/profile_tables.hpp"
#include "thread_state.hpp"

namespace mpidle::profiler {

struct RankIdentity {
  int rank = 0;
  std::string host;
  double wall_s = 0;
  std::uint64_t untracked_requests = 0;
};

// The frames behind a call table key: a return address, or a stack the thread interned.
inline std::vector<std::uintptr_t> stack_of(const ThreadState& thread, std::uintptr_t callsite) {
  if ((callsite & kStackIdTag) && thread.stacks()) return thread.stacks()->frames_of(callsite);
  return {callsite};
}

model::ProfileTables collect_local_tables(const std::vector<const ThreadState*>& threads,
                                          const TickRate& rate, const RankIdentity& identity);

}  // namespace mpidle::profiler
