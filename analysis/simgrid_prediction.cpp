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
  std::string answer;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string last = last_line_of(said);
  if (said) std::fclose(said);
  if (WIFSIGNALED(status)) {
    throw EngineError(std::string("the SimGrid replay ended with signal ") +
                      std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")" +
                      (last.empty() ? "" : ": " + last));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || answer.empty()) {
    const std::string prefix = "mpidle-simgrid: ";
    std::string why = last.rfind(prefix, 0) == 0 ? last.substr(prefix.size()) : last;
    throw EngineError(why.empty() ? "the SimGrid replay stopped without an answer" : why);
  }
  return decode_prediction(answer, input);
}

}  // namespace mpidle::analysis
