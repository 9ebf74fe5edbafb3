#pragma once
// The one object that holds a profiled process' state, from MPI_Init to MPI_Finalize:
// configuration, identity, the profiler's own communicator, the communicator cache
// and every thread's tables. Reached through Context::current().

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/trace_file.hpp"
#include "profiler/core/clock.hpp"
#include "profiler/core/comm_table.hpp"
#include "profiler/core/handle_table.hpp"
#include "profiler/core/regions.hpp"
#include "profiler/finalize/offset_tree.hpp"
#include "profiler/runtime/log_location.hpp"
#include "profiler/runtime/own_world.hpp"
#include "profiler/runtime/papi_probe.hpp"
#include "profiler/runtime/thread_state.hpp"
#include "profiler/runtime/trace_clock.hpp"
#include "settings/settings.hpp"

namespace mpidle::profiler {

// `t` as ISO 8601 in UTC ("2026-11-26T02:16:43Z"), as profile.json writes times.
std::string iso_utc(std::time_t t);

class Context {
 public:
  Context(settings::Settings config, OwnWorld own, int rank, int size);

  static Context* current() { return s_current.load(std::memory_order_acquire); }
  static void install(std::unique_ptr<Context> context);
  static std::unique_ptr<Context> uninstall();

  const settings::Settings& config() const { return m_config; }
  // Where trace chunks spill and an out-of-core finalize keeps its arrays: the run
  // directory when it is known, else the temp dir.
  std::string spill_directory() const { return m_config.output.empty() ? "/tmp" : m_config.output; }
  // Profile mode with trace windows (MPIDLE_WINDOW_MS > 0): calls record trace
  // events while a window is open.
  bool trace_windows_on() const { return !m_config.trace && m_config.window_ms > 0; }
  // Trace mode, MPIDLE_WINDOW_CHECK: the windows' part of the trace calibrates too.
  bool window_check_on() const {
    return m_config.trace && m_config.window_check && m_config.window_ms > 0;
  }
  int rank() const { return m_rank; }
  int size() const { return m_size; }
  MPI_Comm own_comm() const { return m_own.comm(); }
  OwnWorld& own_world() { return m_own; }
  CommTable& comms() { return m_comms; }
  // Pending requests and matched-probe messages of every thread (a request may
  // complete on another thread than the one that started it).
  HandleTable& requests() { return m_requests; }
  HandleTable& messages() { return m_messages; }
  // RMA windows' members as world ranks (a window's group is its communicator's).
  CommTable& windows() { return m_windows; }
  // The MPI library's own code: callsites skip its frames (Fortran bindings).
  const CodeRanges& mpi_code() const { return m_mpi_code; }
  TickRate& tick_rate() { return m_tick_rate; }
  const std::string& host() const { return m_host; }
  const std::string& start_iso() const { return m_start_iso; }
  // Where the application's time begins: after the profiler's own set-up in
  // MPI_Init (timer calibration, PAPI probe, the first offset measurement), which
  // is profiler time, not the application's.
  std::uint64_t start_ns() const { return m_start_ns; }
  void mark_setup_done();
  double setup_s() const { return m_setup_s; }
  std::time_t start_time() const { return m_start_time; }
  // Rank 0's start, agreed at MPI_Init where ranks write into a run directory
  // named after it (checkpoints) and must name it alike.
  void set_start_time(std::time_t start);

  // Trace mode and windows: the trace clock and this rank's offset to its parent
  // at MPI_Init.
  TraceClock& trace_clock() { return m_trace_clock; }
  model::ClockMeasurement& init_offset() { return m_init_offset; }
  // Which of this rank's offset-tree edges stay within its node (offset_tree.hpp).
  NodeLocality& node_locality() { return m_node_locality; }
  // The windows (and trace mode's window check): the smallest one-way latency any
  // rank measured at MPI_Init, agreed on there; 0 where none was measured.
  std::int64_t& window_latency_ns() { return m_window_latency_ns; }
  PapiStatus& papi() { return m_papi; }

  // Slow path of the first recorded call of a thread.
  ThreadState* create_thread_state();
  std::vector<const ThreadState*> threads() const;

  // Trace mode: an id for a communicator that its members agree on without
  // talking: its group (as world ranks) and how many communicators with that
  // group this process made before (communicators are made collectively, in the
  // same order on every member).
  std::uint32_t comm_id(bool world, const std::vector<std::int32_t>& world_ranks);

  // Trace mode: links a non-blocking send or receive to the record of its
  // completion, on whichever thread that happens.
  // Serials wrap after 2^32 requests (harmless: only live requests need distinct
  // ones) but skip 0, which means "no request".
  std::uint32_t next_request_serial() {
    const std::uint32_t s = m_request_serial.fetch_add(1, std::memory_order_relaxed) + 1;
    return s != 0 ? s : m_request_serial.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  // MPIDLE_LOG_DIR: this run's place in the log tree (none: MPIDLE_OUTPUT or the
  // working directory).
  const LogLocation& log_location() const { return m_log_location; }
  void set_log_location(LogLocation location) { m_log_location = std::move(location); }

  // Code regions' paths, numbered once per process (regions.hpp).
  RegionRegistry& regions() { return m_regions; }
  void set_paused(bool paused);
  bool paused() const { return m_paused; }

  // This rank's partial profile (RUN/partial/rank-N). exit() writes it while
  // MPI_Finalize may still come (from a static destructor, a library's destructor
  // or an earlier atexit handler); a signal may want to write it at the same time.
  // One writer at a time: claim_partial() is false while another one writes.
  bool claim_partial();
  void partial_written(std::string dir);
  // Where the last finished write put it, or empty.
  std::string partial_dir() const;

 private:
  static inline constinit std::atomic<Context*> s_current{nullptr};

  settings::Settings m_config;
  OwnWorld m_own;
  int m_rank;
  int m_size;
  std::string m_host;
  std::string m_start_iso;
  std::uint64_t m_start_ns;
  double m_setup_s = 0;
  std::time_t m_start_time;
  TickRate m_tick_rate;
  TraceClock m_trace_clock;
  model::ClockMeasurement m_init_offset;
  NodeLocality m_node_locality;
  std::int64_t m_window_latency_ns = 0;
  PapiStatus m_papi;
  std::uint32_t m_threads_made = 0;
  CommTable m_comms;
  HandleTable m_requests;
  HandleTable m_messages;
  CommTable m_windows;
  CodeRanges m_mpi_code;
  std::unique_ptr<PythonCallers> m_python;  // a Python program calling MPI, else null
  bool m_paused = false;
  RegionRegistry m_regions;
  LogLocation m_log_location;
  std::atomic<std::uint32_t> m_request_serial{0};

  std::mutex m_comm_ids_mutex;
  std::map<std::uint64_t, std::uint32_t> m_comm_groups_seen;

  enum class Partial { none, writing, written };
  std::atomic<Partial> m_partial{Partial::none};
  std::string m_partial_dir;  // set before m_partial becomes `written`

  mutable std::mutex m_threads_mutex;
  std::vector<std::unique_ptr<ThreadState>> m_threads;
};

namespace detail {
[[gnu::tls_model("initial-exec")]] inline constinit thread_local ThreadState* tls_thread_state =
    nullptr;
[[gnu::tls_model("initial-exec")]] inline constinit thread_local bool tls_thread_failed = false;
}  // namespace detail

// A thread's first recorded call makes its tables, out of line.
[[gnu::noinline]] inline ThreadState* first_thread_state() {
  if (detail::tls_thread_failed) return nullptr;
  Context* context = Context::current();
  return context ? context->create_thread_state() : nullptr;
}

// Inlined into every wrapper: one thread-local load.
[[gnu::always_inline]] inline ThreadState* thread_state() {
  ThreadState* state = detail::tls_thread_state;
  if (__builtin_expect(state != nullptr, 1)) return state;
  return first_thread_state();
}

}  // namespace mpidle::profiler
