#include "profiler/runtime/context.hpp"

#include <unistd.h>

#include <climits>
#include <ctime>
#include <new>

#include "profiler/core/log.hpp"
#include "profiler/wrappers/call_scope.hpp"

namespace mpidle::profiler {

std::string iso_utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

Context::Context(settings::Settings config, OwnWorld own, int rank, int size)
    : m_config(std::move(config)),
      m_own(own),
      m_rank(rank),
      m_size(size),
      m_host(host_name()),
      m_start_ns(monotonic_ns()),
      m_start_time(std::time(nullptr)),
      m_requests(static_cast<std::size_t>(m_config.request_entries)),
      m_messages(static_cast<std::size_t>(m_config.request_entries) / 8),
      m_mpi_code(CodeRanges::of_mpi_library()) {
  std::string python_unread;
  m_python = PythonCallers::detect(python_unread);
  if (!python_unread.empty() && rank == 0) warn(python_unread);
  m_start_iso = iso_utc(m_start_time);
  m_tick_rate.start();
}

void Context::mark_setup_done() {
  const std::uint64_t now = monotonic_ns();
  m_setup_s = static_cast<double>(now - m_start_ns) * 1e-9;
  m_start_ns = now;
}

void Context::install(std::unique_ptr<Context> context) {
  s_current.store(context.release(), std::memory_order_release);
  detail::g_recording.store(true, std::memory_order_release);
}

std::unique_ptr<Context> Context::uninstall() {
  detail::g_recording.store(false, std::memory_order_release);
  detail::tls_thread_state = nullptr;
  return std::unique_ptr<Context>(s_current.exchange(nullptr, std::memory_order_acq_rel));
}

void Context::set_start_time(std::time_t start) {
  m_start_time = start;
  m_start_iso = iso_utc(start);
}

ThreadState* Context::create_thread_state() {
  try {
    std::lock_guard lock(m_threads_mutex);
    std::unique_ptr<TraceBuffer> trace;
    std::uint32_t window_records = 0;  // no bound but the buffer's in trace mode
    if (m_config.trace) {
      const std::string dir = spill_directory();
      trace = std::make_unique<TraceBuffer>(static_cast<std::size_t>(m_config.trace_mem_mib),
                                            dir + "/spill-rank" + std::to_string(m_rank) +
                                                "-thread" + std::to_string(m_threads_made) + "-" +
                                                std::to_string(getpid()) + ".bin");
    } else if (trace_windows_on()) {
      // Bounded, never spilled: a window that fills it closes early.
      trace = std::make_unique<TraceBuffer>(static_cast<std::size_t>(m_config.window_mem_mib),
                                            std::string());
      window_records = static_cast<std::uint32_t>(m_config.window_records);
    }
    ++m_threads_made;
    std::unique_ptr<PapiCounters> papi;
    if (m_config.trace && m_papi.available) papi = std::make_unique<PapiCounters>(m_papi.events);
    auto state = std::make_unique<ThreadState>(
        static_cast<std::size_t>(m_config.table_entries), static_cast<int>(m_config.callsite_depth),
        std::move(trace), std::move(papi), &m_mpi_code, m_python.get());
    state->limit_window_records(window_records);
    state->set_in_mpi(&detail::tls_in_mpi);
    ThreadState* raw = state.get();
    m_threads.push_back(std::move(state));
    detail::tls_thread_state = raw;
    return raw;
  } catch (const std::bad_alloc&) {
    detail::tls_thread_failed = true;
    warn("out of memory for a thread's tables; that thread is not profiled");
    return nullptr;
  }
}

std::vector<const ThreadState*> Context::threads() const {
  std::lock_guard lock(m_threads_mutex);
  std::vector<const ThreadState*> out;
  for (const auto& t : m_threads) out.push_back(t.get());
  return out;
}

std::uint32_t Context::comm_id(bool world, const std::vector<std::int32_t>& world_ranks) {
  if (world) return 0;
  std::uint64_t group = 1469598103934665603ull;
  for (auto r : world_ranks) group = (group ^ static_cast<std::uint32_t>(r)) * 1099511628211ull;
  std::lock_guard lock(m_comm_ids_mutex);
  const std::uint32_t seen = m_comm_groups_seen[group]++;
  std::uint64_t id = (group ^ (seen * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  id ^= id >> 32;
  return static_cast<std::uint32_t>(id) | 1u;  // 0 is MPI_COMM_WORLD
}

void Context::set_paused(bool paused) {
  m_paused = paused;
  detail::g_recording.store(!paused, std::memory_order_release);
}

bool Context::claim_partial() {
  Partial state = m_partial.load(std::memory_order_acquire);
  while (state != Partial::writing) {
    if (m_partial.compare_exchange_weak(state, Partial::writing, std::memory_order_acq_rel)) {
      return true;
    }
  }
  return false;
}

void Context::partial_written(std::string dir) {
  m_partial_dir = std::move(dir);
  m_partial.store(Partial::written, std::memory_order_release);
}

std::string Context::partial_dir() const {
  return m_partial.load(std::memory_order_acquire) == Partial::written ? m_partial_dir
                                                                       : std::string();
}

}  // namespace mpidle::profiler
