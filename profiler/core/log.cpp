#include "profiler/core/log.hpp"

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

}  // namespace mpidle::profiler
