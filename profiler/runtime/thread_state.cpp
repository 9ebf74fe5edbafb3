#include "profiler/runtime/thread_state.hpp"

#include "model/profile_tables.hpp"

#ifdef MPIDLE_HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#else
#include <execinfo.h>
#endif

namespace mpidle::profiler {
namespace {

// libunwind's walk is async-signal-safe and allocates nothing; glibc's backtrace()
// (libgcc's unwinder) is the fallback for a build without libunwind.
int walk_stack(void** frames, int max) {
#ifdef MPIDLE_HAVE_LIBUNWIND
  return unw_backtrace(frames, max);
#else
  return backtrace(frames, max);
#endif
}

constexpr std::size_t kStacks = 8192;
// Frames of mpidle itself above the application's call (wrapper, hook, record).
constexpr int kMaxOwnFrames = 8;
// Frames of the MPI library between the application and mpidle (Fortran bindings).
constexpr int kMaxMpiFrames = 6;
}  // namespace

ThreadState::ThreadState(std::size_t table_entries, int callsite_depth,
                         std::unique_ptr<TraceBuffer> trace_buffer,
                         std::unique_ptr<PapiCounters> papi, const CodeRanges* mpi_code,
                         const PythonCallers* python)
    : m_calls(table_entries),
      m_depth(callsite_depth),
      m_mpi_code(mpi_code && !mpi_code->empty() ? mpi_code : nullptr),
      m_stacks(callsite_depth > 1 ? std::make_unique<StackTable>(kStacks) : nullptr),
      m_python(python),
      m_python_frames(python ? std::make_unique<PythonFrames>(*python) : nullptr),
      m_trace(std::move(trace_buffer)),
      m_papi(papi && papi->count() > 0 ? std::move(papi) : nullptr) {}

std::uintptr_t ThreadState::record_new_key(MpiFn fn, void* return_address, std::int16_t size_class,
                                           std::int32_t peer, std::int32_t comm_shape,
                                           std::uint64_t bytes, Ticks start, Ticks duration) {
  const auto f = static_cast<std::uint16_t>(fn);
  const auto returns_to = reinterpret_cast<std::uintptr_t>(return_address);
  std::uintptr_t site = returns_to;
  // A Python extension module's call: every Python line leaves it from one return
  // address, so the key is never its last call's from there (below).
  const bool from_python = m_python && __builtin_expect(m_python->contains(returns_to), 0);
  if (from_python) {
    site = python_callsite(returns_to);
  } else if (m_stacks) {
    site = capture_stack(return_address);
  } else if (m_mpi_code && __builtin_expect(m_mpi_code->contains(site), 0)) {
    // Called by the MPI library itself (a Fortran binding): the callsite is the
    // first frame outside it. Costs a short stack walk, only for such calls.
    site = caller_outside_mpi(return_address);
  }
  const CallKey key{site, f, size_class, peer, comm_shape, m_regions.current()};
  if (CallStats* stats = m_calls.slot_of(key)) {
    CallTable::add_visit(*stats, duration, bytes);
    // Only where the return address is the callsite: a Fortran binding's one
    // return address serves every callsite of the program.
    if (site == returns_to && !m_stacks && !from_python) {
      m_last[last_call_index(returns_to, f)] = LastCall{key, stats};
    }
  } else {
    ++m_dropped;
  }
  // The fast path of record() never sees a function's first call: it repeats a
  // key recorded here before.
  FirstCallRecord& first = m_first_calls[f];
  if (first.start == 0 && duration != kUntimed) {
    first = FirstCallRecord{start, duration, size_class, peer, comm_shape};
  }
  return site;
}

void ThreadState::record_untimed_poll_new_key(MpiFn fn, void* return_address, std::int32_t peer) {
  const auto size_class = static_cast<std::int16_t>(model::kSizeClassIncomplete);
  record(fn, return_address, size_class, peer, 0, 0, 0, kUntimed);
  // record() made the key its last call from this return address where the return
  // address is the callsite: its statistics serve the next polls too.
  const auto returns_to = reinterpret_cast<std::uintptr_t>(return_address);
  const auto f = static_cast<std::uint16_t>(fn);
  if (CallStats* stats = last_call_stats(returns_to, f, size_class, peer, 0)) {
    m_polls[poll_index(returns_to)] = PollKey{returns_to, f, peer, stats};
  }
}

std::uintptr_t ThreadState::capture_stack(void* return_address) {
  void* frames[kMaxStackDepth + kMaxOwnFrames + kMaxMpiFrames];
  const int n = walk_stack(frames, m_depth + kMaxOwnFrames + (m_mpi_code ? kMaxMpiFrames : 0));
  // The application's frames start at the wrapper's return address; the frames
  // before it are mpidle's own, however much the compiler inlined. Frames in the
  // MPI library (a Fortran binding) are skipped too.
  int first = 0;
  while (first < n && frames[first] != return_address) ++first;
  if (first == n) return reinterpret_cast<std::uintptr_t>(return_address);
  while (m_mpi_code && first + 1 < n &&
         m_mpi_code->contains(reinterpret_cast<std::uintptr_t>(frames[first]))) {
    ++first;
  }
  const int depth = std::min(m_depth, n - first);
  const std::uintptr_t id =
      m_stacks->intern(std::span<void* const>(frames + first, static_cast<std::size_t>(depth)));
  return id != 0 ? id : reinterpret_cast<std::uintptr_t>(return_address);
}

std::uintptr_t ThreadState::python_callsite(std::uintptr_t returns_to) {
  std::array<std::uintptr_t, kMaxStackDepth> keys{};
  const std::size_t depth = m_stacks ? static_cast<std::size_t>(m_depth) : 1;
  const std::size_t n = m_python_frames->current(std::span(keys.data(), depth));
  if (n == 0) return returns_to;  // no Python frame (or the table is full): native
  if (!m_stacks) return keys[0];
  std::array<void*, kMaxStackDepth> frames{};
  for (std::size_t i = 0; i < n; ++i) frames[i] = reinterpret_cast<void*>(keys[i]);
  const std::uintptr_t id = m_stacks->intern(std::span<void* const>(frames.data(), n));
  return id != 0 ? id : keys[0];
}

std::uintptr_t ThreadState::caller_outside_mpi(void* return_address) {
  void* frames[kMaxOwnFrames + kMaxMpiFrames];
  const int n = walk_stack(frames, kMaxOwnFrames + kMaxMpiFrames);
  int i = 0;
  while (i < n && frames[i] != return_address) ++i;
  while (i < n && m_mpi_code->contains(reinterpret_cast<std::uintptr_t>(frames[i]))) ++i;
  return i < n ? reinterpret_cast<std::uintptr_t>(frames[i])
               : reinterpret_cast<std::uintptr_t>(return_address);
}

}  // namespace mpidle::profiler
