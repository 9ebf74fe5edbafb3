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
};

model::ProfileTables collect_local_tables(const std::vector<const ThreadState*>& threads,
                                          const TickRate& rate, const RankIdentity& identity);

}  // namespace mpidle::profiler
