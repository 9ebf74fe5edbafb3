#pragma once
// Folds every thread's tables of this process into one rank's model::RankData.

#include <map>
#include <vector>

#include "model/profile_tables.hpp"
#include "profiler/core/clock.hpp"
#include "profiler/runtime/module_map.hpp"
#include "profiler/runtime/thread_state.hpp"

namespace mpidle::profiler {

struct RankIdentity {
  int rank = 0;
  std::string host;
  double wall_s = 0;
  std::uint64_t untracked_requests = 0;
  std::vector<std::string> regions{};  // the process' region paths, by index (regions.hpp)
};

// The frames behind a call table key: a return address, or a stack the thread interned.
inline std::vector<std::uintptr_t> stack_of(const ThreadState& thread, std::uintptr_t callsite) {
  if ((callsite & kStackIdTag) && thread.stacks()) return thread.stacks()->frames_of(callsite);
  return {callsite};
}

// Numbers distinct stacks in the order they are first met, appending each one's
// frames, as (module, offset), to `callsites` once.
class CallsiteNumbering {
 public:
  explicit CallsiteNumbering(std::vector<model::Callsite>& callsites) : m_callsites(callsites) {}
  std::uint32_t id(const std::vector<std::uintptr_t>& stack) {
    auto [it, added] = m_index.try_emplace(stack, static_cast<std::uint32_t>(m_callsites.size()));
    if (added) {
      model::Callsite c;
      for (auto address : stack) {
        c.frames.push_back((address & kPythonFrameTag) ? python_frame_of(address)
                                                       : m_modules.frame_of(address));
      }
      m_callsites.push_back(std::move(c));
    }
    return it->second;
  }

 private:
  std::vector<model::Callsite>& m_callsites;
  ModuleMap m_modules;
  std::map<std::vector<std::uintptr_t>, std::uint32_t> m_index;
};

model::ProfileTables collect_local_tables(const std::vector<const ThreadState*>& threads,
                                          const TickRate& rate, const RankIdentity& identity);

}  // namespace mpidle::profiler
