#include "simgrid_prediction.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "simgrid_client.hpp"

// SimGrid's version header needs its base definitions first.
#include <xbt/base.h>
// (kept apart, so that no sorting puts the version header first)
#include <simgrid/version.h>

namespace mpidle::analysis {
namespace {

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

bool simgrid_available() {
  return true;
}

std::string simgrid_version() {
  return std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR);
}

Prediction predict_simgrid(const model::Trace& trace, const sync::TraceMatching& matching,
                           const PredictionInput& input) {
  int fds[2];
  if (::pipe(fds) != 0) throw EngineError(std::string("pipe: ") + std::strerror(errno));
  // What SimGrid says on stderr goes to a file: its last line explains a failure.
  std::FILE* said = std::tmpfile();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    if (said) std::fclose(said);
    throw EngineError(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    if (said) ::dup2(::fileno(said), 2);
    std::string answer;
    int status = 0;
    try {
      answer = encode_prediction(simulate_on_simgrid(trace, matching, input));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpidle-simgrid: %s\n", e.what());
      status = 3;
    }
    if (status == 0) write_all(fds[1], answer);
    ::close(fds[1]);
    std::fflush(stderr);
    ::_exit(status);
  }
  ::close(fds[1]);
  return collect_prediction(fds[0], pid, said, input);
}

}  // namespace mpidle::analysis
