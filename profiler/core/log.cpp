#include "profiler/core/log.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace mpidle::profiler {
namespace {
int g_rank = -1;
bool g_quiet = false;
}  // namespace

void set_log_rank(int rank, bool quiet_on_this_rank) {
  g_rank = rank;
  g_quiet = quiet_on_this_rank;
}

void warn(const std::string& message) {
  if (g_quiet) return;
  std::string line = g_rank < 0 ? "mpidle: " : "mpidle(" + std::to_string(g_rank) + "): ";
  line += message;
  line += '\n';
  // One write() per line keeps lines from different ranks whole.
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

void let_stderr_drain(int max_ms) {
  struct stat st {};
  // Only a pipe says how much its reader has yet to read; on a terminal FIONREAD
  // counts typed input instead.
  if (::fstat(STDERR_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  const timespec millisecond{0, 1000000};
  for (int waited = 0; waited < max_ms; ++waited) {
    int unread = 0;
    if (::ioctl(STDERR_FILENO, FIONREAD, &unread) != 0 || unread == 0) return;
    ::nanosleep(&millisecond, nullptr);
  }
}

}  // namespace mpidle::profiler
