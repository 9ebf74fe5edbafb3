// MPI_Init, MPI_Finalize, MPI_Abort and MPI_Pcontrol: where the Context starts and
// ends, and what a rank that ends without MPI_Finalize leaves.
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <filesystem>

#include "call_scope.hpp"
#include "context.hpp"
#include "hooks.hpp"
#include "log.hpp"
#include "model/settings.hpp"
#include "mpi_library_check.hpp"
#include "offset_tree.hpp"
#include "papi_counters.hpp"
#include "profile_output.hpp"
#include "termination_signals.hpp"

namespace mpidle::profiler::hooks {
namespace {

std::optional<std::string> from_environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

void start(int rank, int size) {
  std::vector<std::string> warnings;
  model::Settings config = model::parse_settings(from_environment, warnings);
  set_log_rank(rank, rank != 0 && config.verbose == 0);
  for (const auto& w : warnings) warn(w);
  if (!config.enable) return;

  TimerKind timer = TimerKind::monotonic;
  if (config.timer == "tsc" || (config.timer == "auto" && cpu_has_invariant_tsc())) {
    timer = TimerKind::tsc;
  }
  if (config.timer == "tsc" && !cpu_has_invariant_tsc()) {
    warn("MPIDLE_TIMER=tsc but this CPU has no invariant TSC; times may drift");
  }
  select_timer(timer);

  // mpidle's own traffic at init and finalize stays off the application's communicators.
  MPI_Comm own = MPI_COMM_NULL;
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &own) != MPI_SUCCESS) {
    warn("could not duplicate MPI_COMM_WORLD; this run is not profiled");
    return;
  }
  const bool trace = config.trace;
  // Made now, so that `mpidle run` can tell a run that never reached MPI_Finalize
  // from one where nothing was intercepted (MPI linked statically).
  if ((trace || rank == 0) && !config.output.empty()) {
    std::error_code ignored;  // reported when the profile is written
    std::filesystem::create_directories(config.output, ignored);
  }
  auto context = std::make_unique<Context>(std::move(config), own, rank, size);
  bool papi_available = false;
  if (trace) {
    const model::Settings& c = context->config();
    context->trace_clock().calibrate();
    context->trace_clock().set_test_skew(rank, c.test_clock_offset_us, c.test_clock_drift_ppm);
    context->papi() = probe_papi(c.papi_events);
    papi_available = context->papi().available && papi_threads_ready();
    if (!papi_available && context->papi().available) {
      context->papi().available = false;
      context->papi().reason =
          "PAPI could not count from several threads (PAPI_thread_init failed)";
    }
    context->init_offset() = measure_offset_to_parent(own, context->trace_clock());
  }
  profiler::detail::g_tracing = trace;
  profiler::detail::g_papi = trace && papi_available;
  Context* installed = context.get();
  Context::install(std::move(context));
  // The calling thread's tables (megabytes, first touched here) are made inside
  // MPI_Init rather than after the exit of its first call, where their page
  // faults would look like the application computing (2–4 ms on a VM).
  thread_state();
  installed->mark_setup_done();
}

// A rank that ends without MPI_Finalize writes what it has, alone. The Context is
// never destroyed: another thread may still be inside a wrapper, and the process
// is ending anyway.
void write_partial(const char* ended, bool speak) {
  Context* context = Context::uninstall().release();
  if (!context) return;
  if (speak) set_log_rank(context->rank(), false);
  try {
    write_partial_profile(*context, ended);
  } catch (const std::exception& e) {
    warn(std::string("could not write this rank's partial profile: ") + e.what());
  } catch (...) {
    warn("could not write this rank's partial profile");
  }
}

pid_t g_rank_process = 0;

// A signal that ends the job (every rank gets it: rank 0 says).
void write_partial_on_signal(const char* signal) {
  write_partial(signal, false);
}

// exit() before MPI_Finalize (after it, the Context is gone and this does nothing).
// A child the program forked and that exits is not the rank.
void at_exit() {
  if (Context::current() && getpid() == g_rank_process) {
    write_partial("exit", false);  // every rank exits: rank 0 says
  }
}

}  // namespace

// Usually one rank aborts: it says where its profile is, whatever its number.
void on_abort() {
  write_partial("MPI_Abort", true);
}

void on_init(int rc) {
  if (rc != MPI_SUCCESS || Context::current() != nullptr) return;
  try {
    // Before any MPI call of mpidle's own: with another MPI's constants it would
    // crash the program. Without a Context every wrapper passes straight through.
    if (const auto foreign = foreign_mpi_library()) {
      if (!launcher_says_not_first_rank()) warn(*foreign);
      return;
    }
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    start(rank, size);
    static bool exit_hook = false, signal_hook = false;
    g_rank_process = getpid();
    if (const Context* context = Context::current()) {
      if (!exit_hook) exit_hook = std::atexit(at_exit) == 0;
      if (!signal_hook && context->config().partial_on_signal) {
        signal_hook = watch_termination_signals(write_partial_on_signal);
      }
    }
  } catch (const std::exception& e) {
    warn(std::string("could not start profiling: ") + e.what());
  } catch (...) {
    warn("could not start profiling");
  }
}

void on_finalize() {
  std::unique_ptr<Context> context = Context::uninstall();
  if (!context) return;
  try {
    finalize_profile(*context);
  } catch (const std::exception& e) {
    warn(std::string("could not write the profile: ") + e.what());
  } catch (...) {
    warn("could not write the profile");
  }
  MPI_Comm own = context->own_comm();
  PMPI_Comm_free(&own);
}

void on_pcontrol(int level) {
  if (Context* context = Context::current()) context->set_paused(level == 0);
}

void on_type_change() {
  if (Context* context = Context::current()) {
    context->type_generation().fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace mpidle::profiler::hooks
