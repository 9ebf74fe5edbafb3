#pragma once
// Everything one thread records: the call table, the first call of each function,
// pending requests and messages, interned stacks, cached datatype sizes.
// Reached through one thread_local pointer; owned by the Context, merged at finalize.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "mpi_fn.hpp"
#include "profiler/core/call_table.hpp"
#include "profiler/core/clock.hpp"
#include "profiler/core/regions.hpp"
#include "profiler/core/stack_table.hpp"
#include "profiler/core/trace_buffer.hpp"
#include "profiler/core/trace_info.hpp"
#include "profiler/core/trace_windows.hpp"
#include "profiler/runtime/code_ranges.hpp"
#include "profiler/runtime/papi_counters.hpp"
#include "profiler/runtime/python_callers.hpp"

namespace mpidle::profiler {

struct FirstCallRecord {
  Ticks start = 0;  // 0 = not called yet
  Ticks duration = 0;
  std::int16_t size_class = 0;
  std::int32_t peer = -1;
  std::int32_t comm_shape = 0;
};

struct TypeSizeSlot {
  std::uint64_t handle = ~std::uint64_t{0};
  std::uint32_t generation = 0;
  std::uint64_t size = 0;
};

class ThreadState {
 public:
  // `trace_buffer` only in trace mode and with windows; `papi` only when counting
  // PAPI events.
  // `mpi_code`: the MPI library's own code (callsites skip its frames); may be null.
  // `python`: Python extension modules whose calls take the Python line as their
  // callsite; may be null.
  ThreadState(std::size_t table_entries, int callsite_depth,
              std::unique_ptr<TraceBuffer> trace_buffer, std::unique_ptr<PapiCounters> papi,
              const CodeRanges* mpi_code = nullptr, const PythonCallers* python = nullptr);

  // Returns the callsite key used (a return address or an interned stack).
  std::uintptr_t record(MpiFn fn, void* return_address, std::int16_t size_class, std::int32_t peer,
                        std::int32_t comm_shape, std::uint64_t bytes, Ticks start, Ticks duration) {
    const auto f = static_cast<std::uint16_t>(fn);
    const auto returns_to = reinterpret_cast<std::uintptr_t>(return_address);
    // Loops repeat their calls: the same return address and key as the last call
    // of this thread from there find their slot again without a callsite lookup or
    // a hash. (Only where the return address is the callsite: record_new_key.)
    if (CallStats* stats = last_call_stats(returns_to, f, size_class, peer, comm_shape)) {
      CallTable::add_visit(*stats, duration, bytes);
      return returns_to;
    }
    return record_new_key(fn, return_address, size_class, peer, comm_shape, bytes, start, duration);
  }

  // An untimed poll that completed nothing (a polling loop's Test, Testany, Iprobe
  // between its sampled ones): one visit of its key, no bytes, no time. Such keys'
  // statistics are kept by return address (a loop's few polls each their own), so
  // that a polling loop adds to them with three comparisons and two increments;
  // another key goes through record().
  [[gnu::always_inline]] void record_untimed_poll(MpiFn fn, void* return_address,
                                                  std::int32_t peer) {
    const auto returns_to = reinterpret_cast<std::uintptr_t>(return_address);
    const auto f = static_cast<std::uint16_t>(fn);
    PollKey& poll = m_polls[poll_index(returns_to)];
    // A slot's callsite is set only with its statistics (0 in an empty slot).
    if (__builtin_expect(poll.callsite == returns_to && poll.function == f && poll.peer == peer,
                         1)) {
      ++poll.stats->visits;
      ++poll.stats->untimed;
      return;
    }
    record_untimed_poll_new_key(fn, return_address, peer);
  }

  // What trace_in_chunk left to its caller.
  enum class TraceStep : std::uint8_t {
    done,
    no_room,  // nothing written: the chunk is used up; trace() does it all
    tail,     // written; trace_tail() has the window's limit or PAPI to see to
  };
  // Trace mode: one record (times in ticks and the callsite key, converted at finalize).
  // Inlined into the Call's own out-of-line tracing functions (call.hpp), which take
  // few arguments; never into a wrapper, where it would cost profile mode's path
  // registers it never uses. Here where the current chunk has room, without any
  // call, so that the common path saves no registers: the rare cases leave through
  // the returned step to calls the caller makes last (tail calls).
  [[gnu::always_inline]] TraceStep trace_in_chunk(MpiFn fn, std::uintptr_t site, Ticks start,
                                                  Ticks stop, std::int32_t peer,
                                                  std::uint64_t bytes, const TraceInfo& info,
                                                  bool extra, std::int16_t size_class) {
    if (!m_trace) return TraceStep::done;
    model::TraceRecord* room = m_trace->next_in_chunk();
    if (__builtin_expect(room == nullptr, 0)) return TraceStep::no_room;
    write_record(*room, fn, site, start, stop, peer, bytes, info, extra, size_class);
    bool tail = __builtin_expect(m_papi != nullptr, 0) && !extra;
    if (__builtin_expect(m_window_records != 0, 0)) tail |= window_record_limit_reached();
    return tail ? TraceStep::tail : TraceStep::done;
  }
  // After trace_in_chunk's `tail`: the window's record limit, PAPI's counters.
  [[gnu::noinline]] void trace_tail(bool extra) {
    if (m_window_records != 0 && m_window_kept == m_window_records) window_records_reached();
    if (m_papi != nullptr && !extra) keep_pending_burst();
  }
  // Every case, a new chunk and a full buffer included (out of line at its callers).
  [[gnu::always_inline]] void trace(MpiFn fn, std::uintptr_t site, Ticks start, Ticks stop,
                                    std::int32_t peer, std::uint64_t bytes, const TraceInfo& info,
                                    bool extra, std::int16_t size_class) {
    TraceStep step = trace_in_chunk(fn, site, start, stop, peer, bytes, info, extra, size_class);
    if (step == TraceStep::no_room) {
      if (!m_trace->make_room()) {
        window_buffer_full();
        return;
      }
      step = trace_in_chunk(fn, site, start, stop, peer, bytes, info, extra, size_class);
    }
    if (step == TraceStep::tail) trace_tail(extra);
  }
  // Written in place: every field, so nothing is built aside and copied.
  [[gnu::always_inline]] static void write_record(model::TraceRecord& r, MpiFn fn,
                                                  std::uintptr_t site, Ticks start, Ticks stop,
                                                  std::int32_t peer, std::uint64_t bytes,
                                                  const TraceInfo& info, bool extra,
                                                  std::int16_t size_class) {
    r.enter_ns = static_cast<std::int64_t>(start);
    r.exit_ns = static_cast<std::int64_t>(stop);
    r.callsite = site;
    r.bytes = bytes;
    r.function = static_cast<std::uint32_t>(fn);
    r.peer = peer;
    r.tag = info.tag;
    r.comm = info.comm;
    r.sequence = info.sequence;
    r.root = info.root;
    r.role = info.role;
    r.collective_kind = static_cast<std::uint8_t>(info.kind);
    r.extra = extra ? 1 : 0;
    r.flags = info.flags;
    r.profile_size_class = static_cast<std::int8_t>(size_class);
  }
  // PAPI: the burst read when the call began belongs to the call's own record. Out
  // of line, so that a record without counters saves no registers for it.
  [[gnu::noinline]] void keep_pending_burst() {
    if (m_pending_burst.size() == m_papi->count()) {
      m_counters.insert(m_counters.end(), m_pending_burst.begin(), m_pending_burst.end());
    } else {
      m_counters.insert(m_counters.end(), m_papi->count(), -1);
    }
    m_pending_burst.clear();
  }
  // PAPI: around every call (only when counting).
  void papi_call_start() {
    if (!m_papi) return;
    m_pending_burst.clear();
    m_papi->burst_into(m_pending_burst);
  }
  void papi_call_end() {
    if (m_papi) m_papi->mark_end();
  }
  const std::vector<std::int64_t>& counters() const { return m_counters; }
  std::size_t counter_count() const { return m_papi ? m_papi->count() : 0; }
  TraceBuffer* trace_buffer() const { return m_trace.get(); }
  // Profile mode's windows: the records this thread keeps per window (0: no bound).
  void limit_window_records(std::uint32_t records) { m_window_records = records; }

  // Code regions: calls recorded from now on take the new current region; the
  // last-call shortcut of record() forgets its keys, which carry the old one, so
  // that record() itself never looks at regions.
  void region_begin(RegionRegistry& registry, const char* name) {
    if (m_regions.begin(registry, name, now())) forget_last_calls();
  }
  // False when no open region has that name.
  bool region_end(const char* name) {
    bool unmatched = false;
    if (m_regions.end(name, now(), unmatched)) forget_last_calls();
    return !unmatched;
  }
  const RegionStack& regions() const { return m_regions; }

  const CallTable& calls() const { return m_calls; }
  const std::array<FirstCallRecord, kMpiFnCount>& first_calls() const { return m_first_calls; }
  std::uint64_t dropped() const { return m_dropped; }
  const StackTable* stacks() const { return m_stacks.get(); }
  // Everything this thread's tables hold; fixed when the thread starts.
  std::size_t memory_bytes() const {
    return sizeof(*this) + m_calls.memory_bytes() + (m_stacks ? m_stacks->memory_bytes() : 0) +
           (m_python_frames ? m_python_frames->memory_bytes() : 0) +
           (m_trace ? m_trace->memory_bytes() : 0) + m_scratch_bytes;
  }

  // Scratch room for a completion call's request handles and statuses, kept
  // between calls: it grows only when a call hands over more requests than any
  // before it, so steady state allocates nothing. One completion call at a time
  // runs per thread (nested MPI calls are not recorded).
  template <typename T>
  T* scratch(std::size_t slot, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    auto& buffer = m_scratch[slot];
    const std::size_t bytes = count * sizeof(T);
    if (buffer.size() < bytes) {
      m_scratch_bytes += bytes - buffer.size();
      buffer.resize(bytes);
    }
    return reinterpret_cast<T*>(buffer.data());
  }
  TypeSizeSlot& type_size_slot(std::uint64_t handle) {
    return m_type_sizes[(handle ^ (handle >> 8)) % m_type_sizes.size()];
  }

  // The thread's word that says which MPI call it is in (call_scope.hpp's
  // tls_in_mpi), read by the stall watcher (checkpoints.hpp).
  void set_in_mpi(const std::uint8_t* word) { m_in_mpi = word; }
  // Which MPI call the thread is in now (0: none), from another thread.
  std::uint8_t in_mpi_now() const {
    return m_in_mpi ? __atomic_load_n(m_in_mpi, __ATOMIC_RELAXED) : 0;
  }

 private:
  // The callsite (return address, stack or first frame outside the MPI library) and
  // the table slot of a key that is not the last call's, out of line.
  [[gnu::noinline]] std::uintptr_t record_new_key(MpiFn fn, void* return_address,
                                                  std::int16_t size_class, std::int32_t peer,
                                                  std::int32_t comm_shape, std::uint64_t bytes,
                                                  Ticks start, Ticks duration);
  [[gnu::noinline]] void record_untimed_poll_new_key(MpiFn fn, void* return_address,
                                                     std::int32_t peer);
  std::uintptr_t capture_stack(void* return_address);
  // The statistics of this thread's last call from `returns_to`, where its key is
  // the one given; null otherwise.
  [[gnu::always_inline]] CallStats* last_call_stats(std::uintptr_t returns_to, std::uint16_t f,
                                                    std::int16_t size_class, std::int32_t peer,
                                                    std::int32_t comm_shape) const {
    const LastCall& last = m_last[last_call_index(returns_to, f)];
    const bool same = last.stats != nullptr && last.key.callsite == returns_to &&
                      last.key.function == f && last.key.size_class == size_class &&
                      last.key.peer == peer && last.key.comm_shape == comm_shape;
    return same ? last.stats : nullptr;
  }
  void forget_last_calls() {
    m_last.fill(LastCall{});
    m_polls.fill(PollKey{});
  }
  std::uintptr_t caller_outside_mpi(void* return_address);
  std::uintptr_t python_callsite(std::uintptr_t returns_to);
  // The window's records so far, counted afresh in each window this thread sees.
  // Counts a kept record in the current window: true for the one that reaches
  // the limit (its record is kept; the caller then closes the window).
  bool window_record_limit_reached() {
    const std::uint32_t window = detail::g_window_number.load(std::memory_order_relaxed);
    if (window != m_window_seen) {
      m_window_seen = window;
      m_window_kept = 0;
    }
    return ++m_window_kept == m_window_records;
  }

  CallTable m_calls;
  struct LastCall {
    CallKey key;  // its callsite is the return address
    CallStats* stats = nullptr;
  };
  // The last call from each place, direct-mapped by return address and function.
  static constexpr std::size_t kLastCalls = 256;
  static std::size_t last_call_index(std::uintptr_t returns_to, std::uint16_t function) {
    return ((returns_to >> 2) ^ function) & (kLastCalls - 1);
  }
  std::array<LastCall, kLastCalls> m_last{};
  // record_untimed_poll's keys (size class incomplete, no communicator shape,
  // this thread's current region), direct-mapped as m_last: valid only where the
  // return address is the callsite.
  struct PollKey {
    std::uintptr_t callsite = 0;
    std::uint16_t function = 0;
    std::int32_t peer = 0;
    CallStats* stats = nullptr;
  };
  static constexpr std::size_t kPolls = 16;
  // By return address alone (one call instruction calls one function), hashed: a
  // loop's polls sit a few bytes apart, and low bits mixed with the function's
  // number put a loop's Iprobe and Testany in one slot.
  static std::size_t poll_index(std::uintptr_t returns_to) {
    return static_cast<std::size_t>((returns_to * 0x9e3779b97f4a7c15ull) >> 60);
  }
  std::array<PollKey, kPolls> m_polls{};
  const std::uint8_t* m_in_mpi = nullptr;
  std::array<FirstCallRecord, kMpiFnCount> m_first_calls{};
  RegionStack m_regions;
  std::uint64_t m_dropped = 0;
  // Aligned for any scalar type (operator new's alignment).
  std::array<std::vector<std::byte>, 2> m_scratch;
  std::size_t m_scratch_bytes = 0;
  std::array<TypeSizeSlot, 256> m_type_sizes{};
  int m_depth;
  const CodeRanges* m_mpi_code;
  std::unique_ptr<StackTable> m_stacks;  // only when callsite_depth > 1
  const PythonCallers* m_python;
  std::unique_ptr<PythonFrames> m_python_frames;  // only for a Python program
  std::unique_ptr<TraceBuffer> m_trace;           // only in trace mode
  std::uint32_t m_window_records = 0;             // MPIDLE_WINDOW_RECORDS with windows
  std::uint32_t m_window_seen = 0;
  std::uint32_t m_window_kept = 0;
  std::unique_ptr<PapiCounters> m_papi;  // only when counting PAPI events
  std::vector<std::int64_t> m_pending_burst;
  std::vector<std::int64_t> m_counters;  // counter_count() per main trace record
};

}  // namespace mpidle::profiler
