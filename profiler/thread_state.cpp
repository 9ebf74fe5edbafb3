#include "thread_state.hpp"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

namespace mpidle::profiler {
namespace {
constexpr std::size_t kStacks = 8192;
// Frames of mpidle itself above the application's call (wrapper, hook, record).
constexpr int kMaxOwnFrames = 8;
}  // namespace

ThreadState::ThreadState(std::size_t table_entries, int callsite_depth,
                         std::unique_ptr<TraceBuffer> trace_buffer,
                         std::unique_ptr<PapiCounters> papi)
    : m_calls(table_entries),
      m_depth(callsite_depth),
      m_stacks(callsite_depth > 1 ? std::make_unique<StackTable>(kStacks) : nullptr),
      m_trace(std::move(trace_buffer)),
      m_papi(papi && papi->count() > 0 ? std::move(papi) : nullptr) {}

std::uintptr_t ThreadState::capture_stack(void* return_address) {
  void* frames[kMaxStackDepth + kMaxOwnFrames];
  const int n = unw_backtrace(frames, m_depth + kMaxOwnFrames);
  // The application's frames start at the wrapper's return address; the frames
  // before it are mpidle's own, however much the compiler inlined.
  int first = 0;
  while (first < n && frames[first] != return_address) ++first;
  if (first == n) return reinterpret_cast<std::uintptr_t>(return_address);
  const int depth = std::min(m_depth, n - first);
  const std::uintptr_t id =
      m_stacks->intern(std::span<void* const>(frames + first, static_cast<std::size_t>(depth)));
  return id != 0 ? id : reinterpret_cast<std::uintptr_t>(return_address);
}

}  // namespace mpidle::profiler
