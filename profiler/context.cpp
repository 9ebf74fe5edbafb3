#include "context.hpp"

#include <unistd.h>

#include <climits>
#include <ctime>
#include <new>

#include "call_scope.hpp"
#include "log.hpp"

namespace mpidle::profiler {
namespace {

std::string iso_utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

Context::Context(Config config, MPI_Comm own_comm, int rank, int size)
    : m_config(std::move(config)),
      m_own_comm(own_comm),
      m_rank(rank),
      m_size(size),
      m_host(host_name()),
      m_start_ns(monotonic_ns()),
      m_start_time(std::time(nullptr)) {
  m_start_iso = iso_utc(m_start_time);
  m_tick_rate.start();
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

ThreadState* Context::create_thread_state() {
  try {
    auto state = std::make_unique<ThreadState>(static_cast<std::size_t>(m_config.table_entries),
                                               static_cast<int>(m_config.callsite_depth));
    ThreadState* raw = state.get();
    std::lock_guard lock(m_threads_mutex);
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

void Context::set_paused(bool paused) {
  m_paused = paused;
  detail::g_recording.store(!paused, std::memory_order_release);
}

}  // namespace mpidle::profiler
