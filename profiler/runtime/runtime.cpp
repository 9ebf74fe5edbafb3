// MPI_Init, MPI-4 sessions, MPI_Finalize, MPI_Abort and MPI_Pcontrol: where the
// Context starts and ends, and what a rank that ends without MPI_Finalize leaves.
#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>

#include "profiler/core/log.hpp"
#include "profiler/core/trace_windows.hpp"
#include "profiler/finalize/offset_tree.hpp"
#include "profiler/finalize/profile_output.hpp"
#include "profiler/runtime/checkpoints.hpp"
#include "profiler/runtime/context.hpp"
#include "profiler/runtime/mpi_library_check.hpp"
#include "profiler/runtime/papi_counters.hpp"
#include "profiler/runtime/termination_signals.hpp"
#include "profiler/wrappers/call_scope.hpp"
#include "profiler/wrappers/hooks.hpp"
#include "settings/config_file.hpp"
#include "settings/settings.hpp"
#include "transport/yielding.hpp"

namespace mpidle::profiler::hooks {
namespace {

// The settings, with the log set up for this rank (rank 0 speaks); nullopt when
// profiling is off.
std::optional<settings::Settings> settings_of(int rank) {
  std::vector<std::string> warnings;
  settings::Settings config = settings::read_settings(settings::environment_variable, warnings);
  set_log_rank(rank, rank != 0 && config.verbose == 0);
  for (const auto& w : warnings) warn(w);
  if (!config.enable) return std::nullopt;
  return config;
}

void start(settings::Settings config, OwnWorld own, int rank, int size) {
  TimerKind timer = TimerKind::monotonic;
  if (config.timer == "tsc" || (config.timer == "auto" && cpu_has_invariant_tsc())) {
    timer = TimerKind::tsc;
  }
  if (config.timer == "tsc" && !cpu_has_invariant_tsc()) {
    warn("MPIDLE_TIMER=tsc but this CPU has no invariant TSC; times may drift");
  }
  select_timer(timer);

  const bool trace = config.trace;
  LogLocation log_location = choose_log_location(config, own.comm(), rank);
  // Made now, so that `mpidle run` can tell a run that never reached MPI_Finalize
  // from one where nothing was intercepted (MPI linked statically).
  if ((trace || rank == 0) && !config.output.empty()) {
    std::error_code ignored;  // reported when the profile is written
    std::filesystem::create_directories(config.output, ignored);
  }
  auto context = std::make_unique<Context>(std::move(config), own, rank, size);
  context->set_log_location(std::move(log_location));
  if (context->config().checkpoint > 0) {
    // Every rank writes its checkpoints into the run directory rank 0 names.
    if (rank == 0) clear_checkpoints(*context);
    std::int64_t start = context->start_time();
    PMPI_Bcast(&start, 1, MPI_INT64_T, 0, own.comm());
    context->set_start_time(static_cast<std::time_t>(start));
  }
  profiler::detail::g_world_rank = rank;
  bool papi_available = false;
  const bool windows = context->trace_windows_on();
  if (trace || windows) {
    const settings::Settings& c = context->config();
    context->trace_clock().calibrate();
    context->trace_clock().set_test_skew(rank, c.test_clock_offset_us, c.test_clock_drift_ppm);
    if (trace) {
      context->papi() = probe_papi(c.papi_events);
      papi_available = context->papi().available && papi_threads_ready();
      if (!papi_available && context->papi().available) {
        context->papi().available = false;
        context->papi().reason =
            "PAPI could not count from several threads (PAPI_thread_init failed)";
      }
    }
    // The test skew gives ranks of one node different clocks: then every edge is measured.
    const bool skewed = c.test_clock_offset_us != 0 || c.test_clock_drift_ppm != 0;
    if (!skewed) context->node_locality() = node_locality(own.comm());
    context->init_offset() = measure_offset_to_parent(own.comm(), context->trace_clock(),
                                                      context->node_locality().edges, nullptr);
  }
  profiler::detail::g_trace_open.store(trace, std::memory_order_relaxed);
  if (windows || context->window_check_on()) {
    // Every rank leaves the reduction at about the same moment (microseconds apart),
    // as it would a barrier: the reference the windows are placed from. It also
    // agrees on the latency the windows' messages are paired with, which the
    // finalize would otherwise spend a round of its own on.
    const model::ClockMeasurement& measured = context->init_offset();
    std::int64_t half_rtt = rank == 0 || measured.rtt_ns <= 0 ? INT64_MAX : measured.rtt_ns / 2;
    std::int64_t latency = INT64_MAX;
    PMPI_Allreduce(&half_rtt, &latency, 1, MPI_INT64_T, MPI_MIN, own.comm());
    context->window_latency_ns() = latency == INT64_MAX ? 0 : latency;
    const settings::Settings& c = context->config();
    const model::WindowSchedule schedule(c.window_ms * 1000000, c.window_period * 1000000000);
    if (windows) {
      // The clock goes by copy: a call may still cross an edge while the Context ends.
      trace_windows().start(schedule, now(), context->trace_clock().ns_per_tick(),
                            [clock = context->trace_clock()] { return clock.ns_per_tick_now(); });
    } else {
      trace_windows().place(schedule, now());
    }
  }
  profiler::detail::g_papi = trace && papi_available;
  // Every trace record needs its times; in profile mode 1 in poll_sample polls.
  profiler::detail::g_poll_sample =
      trace ? 1
            : static_cast<std::uint32_t>(std::max<std::int64_t>(context->config().poll_sample, 1));
  Context* installed = context.get();
  Context::install(std::move(context));
  // The calling thread's tables (megabytes, first touched here) are made inside
  // MPI_Init rather than after the exit of its first call, where their page
  // faults would look like the application computing (2–4 ms on a VM).
  thread_state();
  start_checkpoints(*installed);
  installed->mark_setup_done();
}

pid_t g_rank_process = 0;

// One writer of the partial profile at a time (see Context::claim_partial). With
// `publish`, the rank is known to end without MPI_Finalize: in a log tree its
// partial profile goes to the run's final place.
void write_partial(Context& context, const char* ended, bool announce, bool publish) {
  if (!context.claim_partial()) return;
  std::string dir;
  try {
    write_last_checkpoint(context, ended);
    dir = write_partial_profile(context, ended, announce && !context.log_location().run);
    if (publish && !dir.empty()) dir = publish_partial_profile(context, dir, ended, announce);
  } catch (const std::exception& e) {
    warn(std::string("could not write this rank's partial profile: ") + e.what());
  } catch (...) {
    warn("could not write this rank's partial profile");
  }
  context.partial_written(std::move(dir));
}

// A rank that ends now, without MPI_Finalize, writes what it has, alone. The Context
// is never destroyed: another thread may still be inside a wrapper, and the
// process is ending anyway.
void write_partial_and_end(const char* ended, bool speak) {
  Context* context = Context::uninstall().release();
  if (!context) return;
  if (speak) set_log_rank(context->rank(), false);
  write_partial(*context, ended, true, true);
}

// A signal that ends the job (every rank gets it: rank 0 says). A rank already in
// exit() wrote its partial profile there: it ends at once, as it would bare.
void write_partial_on_signal(const char* signal) {
  const Context* context = Context::current();
  if (context && !context->partial_dir().empty()) return;
  write_partial_and_end(signal, false);
}

// exit() before MPI_Finalize. MPI_Finalize may still come: from a static destructor
// or a library's, from an atexit handler registered before MPI_Init, all of which
// run after this one. So the partial profile is written now (the process may yet
// die, or be killed by its launcher), and the Context stays: a later MPI_Finalize
// writes the whole profile and removes the partial one. Whether it came is said
// at the very end (say_if_never_finalized). A child the program forked and that
// exits is not the rank.
void at_exit() {
  Context* context = Context::current();
  if (context && getpid() == g_rank_process) write_partial(*context, "exit", false, false);
}

// A rank that still holds its Context at the end of the process never finalized
// (every rank exits: rank 0 says).
void say_if_never_finalized(void*) {
  Context* context = Context::current();
  if (!context || getpid() != g_rank_process) return;
  if (std::string dir = context->partial_dir(); !dir.empty()) {
    if (context->log_location().run) dir = publish_partial_profile(*context, dir, "exit", false);
    warn("this rank ended without MPI_Finalize (exit): its partial profile is in " + dir);
  }
}

// libmpidle's destructor function runs while the libraries are unloaded, possibly
// before another library's destructor calls MPI_Finalize. An exit handler
// registered now runs after every one of them (glibc runs handlers registered
// during exit once the running one returns), the last code of the process.
[[gnu::destructor]] void at_unload() {
  if (Context::current() && getpid() == g_rank_process) {
    abi::__cxa_atexit(say_if_never_finalized, nullptr, nullptr);
  }
}

void remove_partial(const std::string& dir) {
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  // partial/ itself, once no rank's is left in it.
  std::filesystem::remove(std::filesystem::path(dir).parent_path(), ignored);
}

// Who holds MPI open: the world model (MPI_Init to MPI_Finalize) and the
// application's sessions. The profile starts with the first and is written when
// the last ends. Opening and closing MPI is rare: a lock is fine here.
std::mutex g_openings_mutex;
bool g_world_open = false;
int g_sessions_open = 0;
bool g_profile_written = false;

// With g_openings_mutex held, after MPI was opened.
void begin(bool by_session) {
  if (Context::current() != nullptr) return;
  // Before any MPI call of mpidle's own: with another MPI's constants it would
  // crash the program. Without a Context every wrapper passes straight through.
  if (const auto foreign = foreign_mpi_library()) {
    if (!launcher_says_not_first_rank()) warn(*foreign);
    return;
  }
  if (g_profile_written) {
    // Sessions let a program open MPI again after closing it; the run's profile
    // was written when it closed.
    static bool said = false;
    if (!said && !launcher_says_not_first_rank()) {
      warn(
          "MPI was opened again after this run's profile was written; what follows is not "
          "profiled");
    }
    said = true;
    return;
  }
  int rank = 0, size = 1;
  if (by_session) {
    // Where MPI_COMM_WORLD does not exist, mpidle's own session tells the rank.
    auto own = OwnWorld::from_session();
    if (!own) {
      warn("could not make a communicator over mpi://WORLD; this run is not profiled");
      return;
    }
    PMPI_Comm_rank(own->comm(), &rank);
    PMPI_Comm_size(own->comm(), &size);
    auto config = settings_of(rank);
    if (!config) {
      own->close();
      return;
    }
    start(std::move(*config), *own, rank, size);
  } else {
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    auto config = settings_of(rank);
    if (!config) return;
    const auto own = OwnWorld::from_world_model();
    if (!own) {
      warn("could not duplicate MPI_COMM_WORLD; this run is not profiled");
      return;
    }
    start(std::move(*config), *own, rank, size);
  }
  static bool exit_hook = false, signal_hook = false;
  g_rank_process = getpid();
  if (const Context* context = Context::current()) {
    if (!exit_hook) exit_hook = std::atexit(at_exit) == 0;
    if (!signal_hook && context->config().partial_on_signal) {
      signal_hook = watch_termination_signals(write_partial_on_signal);
    }
  }
}

// The ranks enter the MPI library's own finalize together. Rank 0 writes the run
// directory after the others are done with the profile's trees, so they would
// reach it first, and MPICH 4.0.2 over UCX 1.13's TCP transport then hung in
// PMPI_Finalize in 12 of 30 runs of a small program (one rank closing its endpoint,
// the other already waiting in the process manager's barrier). A barrier that waits
// yielding, as the finalize's trees do, still left 3 hangs in 50 runs (the ranks
// learn that it completed up to a sleep apart); a blocking one after it, which every
// rank enters at once and leaves within microseconds, none in 40.
void leave_together(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return;
  MPI_Request request = MPI_REQUEST_NULL;
  if (PMPI_Ibarrier(comm, &request) == MPI_SUCCESS) transport::wait_yielding(request);
  PMPI_Barrier(comm);
}

// With g_openings_mutex held, before MPI is closed: the profile is written when
// nothing else holds MPI open.
void end_if_last() {
  if (g_world_open || g_sessions_open > 0) return;
  stop_checkpoints();
  std::unique_ptr<Context> context = Context::uninstall();
  if (!context) return;
  g_profile_written = true;
  try {
    finalize_profile(*context);
    if (const std::string partial = context->partial_dir(); !partial.empty()) {
      remove_partial(partial);
    }
  } catch (const std::exception& e) {
    warn(std::string("could not write the profile: ") + e.what());
  } catch (...) {
    warn("could not write the profile");
  }
  leave_together(context->own_comm());
  context->own_world().close();
}

template <typename Step>
void guarded(const char* what, Step step) {
  try {
    std::lock_guard lock(g_openings_mutex);
    step();
  } catch (const std::exception& e) {
    warn(std::string(what) + e.what());
  } catch (...) {
    warn(std::string(what) + "unknown error");
  }
}

}  // namespace

// Usually one rank aborts: it says where its profile is, whatever its number.
void on_abort() {
  write_partial_and_end("MPI_Abort", true);
  let_stderr_drain(200);
}

void on_init(int rc) {
  if (rc != MPI_SUCCESS) return;
  guarded("could not start profiling: ", [] {
    g_world_open = true;
    begin(false);
  });
}

void on_finalize() {
  guarded("could not write the profile: ", [] {
    g_world_open = false;
    end_if_last();
  });
}

void on_session_init(int rc) {
  if (rc != MPI_SUCCESS) return;
  guarded("could not start profiling: ", [] {
    ++g_sessions_open;
    begin(true);
  });
}

void on_session_finalize() {
  guarded("could not write the profile: ", [] {
    if (g_sessions_open > 0) --g_sessions_open;
    end_if_last();
  });
}

void on_type_change() {
  profiler::detail::g_type_generation.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace mpidle::profiler::hooks
