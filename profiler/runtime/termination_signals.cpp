#include "profiler/runtime/termination_signals.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <iterator>

namespace mpidle::profiler {
namespace {

struct TerminationSignal {
  int number;
  const char* name;  // as run.ended records it
};
constexpr TerminationSignal kSignals[] = {
    {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"}, {SIGHUP, "SIGHUP"}, {SIGXCPU, "SIGXCPU"}};
// How long the interrupted thread waits for the partial profile: far below the
// grace a batch system gives (Slurm's KillWait is 30 s), far above the milliseconds
// the write takes.
constexpr int kWriteDeadlineMs = 2000;

pid_t g_process = 0;
int g_wake[2] = {-1, -1};  // handler -> writer: a signal came (g_signal says which)
int g_done[2] = {-1, -1};  // writer -> handler: written
std::atomic<int> g_signal{0};
void (*g_write_partial)(const char*) = nullptr;

const char* name_of(int signal) {
  for (const auto& s : kSignals) {
    if (s.number == signal) return s.name;
  }
  return "";  // not reached: the handler is installed for kSignals only
}

void end_by_default_action(int signal) {
  struct sigaction by_default {};
  by_default.sa_handler = SIG_DFL;
  sigemptyset(&by_default.sa_mask);
  sigaction(signal, &by_default, nullptr);
  // Pending while this handler runs; delivered, with the default action, as it returns.
  raise(signal);
}

// Only async-signal-safe calls here.
void on_signal(int signal) {
  const int saved_errno = errno;
  int none = 0;
  // A child the program forked has no writer (and must not wake its parent's): it
  // ends at once. A second signal while the first is handled waits for the first to
  // end the process.
  if (getpid() != g_process) {
    end_by_default_action(signal);
  } else if (g_signal.compare_exchange_strong(none, signal)) {
    const char wake = 1;
    if (write(g_wake[1], &wake, 1) == 1) {
      pollfd done{g_done[0], POLLIN, 0};
      while (poll(&done, 1, kWriteDeadlineMs) < 0 && errno == EINTR) {
      }
    }
    end_by_default_action(signal);
  }
  errno = saved_errno;
}

void* writer(void*) {
  char wake = 0;
  for (;;) {
    const ssize_t n = read(g_wake[0], &wake, 1);
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    return nullptr;
  }
  g_write_partial(name_of(g_signal.load()));
  const char done = 1;
  (void)!write(g_done[1], &done, 1);
  return nullptr;
}

bool start_writer() {
  if (pipe2(g_wake, O_CLOEXEC) != 0) return false;
  if (pipe2(g_done, O_CLOEXEC) != 0) return false;
  // The writer never takes these signals itself: the handler, which waits for it,
  // must run on another thread.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  pthread_t thread;
  const bool started = pthread_create(&thread, nullptr, writer, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (started) pthread_detach(thread);
  return started;
}

}  // namespace

bool watch_termination_signals(void (*write_partial)(const char* ended)) {
  int at_default[std::size(kSignals)];
  std::size_t count = 0;
  for (const auto& s : kSignals) {
    struct sigaction current {};
    if (sigaction(s.number, nullptr, &current) == 0 && !(current.sa_flags & SA_SIGINFO) &&
        current.sa_handler == SIG_DFL) {
      at_default[count++] = s.number;
    }
  }
  if (count == 0) return false;
  g_process = getpid();
  g_write_partial = write_partial;
  if (!start_writer()) return false;
  std::size_t installed = 0;
  for (std::size_t i = 0; i < count; ++i) {
    struct sigaction handler {};
    handler.sa_handler = on_signal;
    sigemptyset(&handler.sa_mask);
    handler.sa_flags = SA_RESTART;
    installed += sigaction(at_default[i], &handler, nullptr) == 0;
  }
  return installed > 0;
}

}  // namespace mpidle::profiler
