#include "simgrid_prediction.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

// SimGrid's version header needs its base definitions first.
#include <xbt/base.h>
// (kept apart, so that no sorting puts the version header first)
#include <simgrid/version.h>

namespace mpidle::analysis {
namespace {

// The child's answer: a Prediction's numbers as raw bytes (one machine, one build:
// no portability needed), or an error message after a 0 byte.
class Writer {
 public:
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    m_bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put(const TimeSplit& t) {
    for (double d : {t.compute_s, t.latency_s, t.bandwidth_s, t.wait_s, t.other_s}) put(d);
  }
  std::string m_bytes;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : m_bytes(bytes) {}
  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    if (m_at + sizeof(T) > m_bytes.size()) throw EngineError("the SimGrid replay's answer is cut");
    T v;
    std::memcpy(&v, m_bytes.data() + m_at, sizeof v);
    m_at += sizeof v;
    return v;
  }
  TimeSplit split() {
    TimeSplit t;
    for (double* d : {&t.compute_s, &t.latency_s, &t.bandwidth_s, &t.wait_s, &t.other_s}) {
      *d = get<double>();
    }
    return t;
  }

 private:
  const std::string& m_bytes;
  std::size_t m_at = 0;
};

std::string encode(const Prediction& p) {
  Writer w;
  w.put(std::uint8_t{1});
  w.put(p.wall_s);
  w.put(p.measured_wall_s);
  w.put(p.events);
  w.put(p.unresolved);
  w.put(p.total);
  w.put(static_cast<std::uint64_t>(p.ranks.size()));
  for (const auto& r : p.ranks) {
    w.put(r.wall_s);
    w.put(r.measured_wall_s);
    w.put(r.time);
  }
  w.put(static_cast<std::uint64_t>(p.sites.size()));
  for (const auto& s : p.sites) {
    w.put(s.function);
    w.put(s.callsite);
    w.put(s.calls);
    w.put(s.time);
  }
  return w.m_bytes;
}

Prediction decode(const std::string& bytes, const PredictionInput& input) {
  Reader r(bytes);
  if (r.get<std::uint8_t>() != 1) throw EngineError("the SimGrid replay gave no answer");
  Prediction p;
  p.machine = input.machine.name;
  p.cpu_scale = input.cpu_scale;
  p.wall_s = r.get<double>();
  p.measured_wall_s = r.get<double>();
  p.events = r.get<std::uint64_t>();
  p.unresolved = r.get<std::uint64_t>();
  p.total = r.split();
  const auto ranks = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < ranks; ++i) {
    RankPrediction rank;
    rank.wall_s = r.get<double>();
    rank.measured_wall_s = r.get<double>();
    rank.time = r.split();
    p.ranks.push_back(rank);
  }
  const auto sites = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < sites; ++i) {
    SitePrediction s;
    s.function = r.get<std::uint32_t>();
    s.callsite = r.get<std::uint32_t>();
    s.calls = r.get<std::uint64_t>();
    s.time = r.split();
    p.sites.push_back(s);
  }
  return p;
}

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// The last line the child wrote to `file` (at most its last 4 KiB are read).
std::string last_line(std::FILE* file) {
  if (!file) return {};
  std::fflush(file);
  const long size = (std::fseek(file, 0, SEEK_END) == 0) ? std::ftell(file) : 0;
  if (size <= 0) return {};
  const long from = std::max(0L, size - 4096);
  std::fseek(file, from, SEEK_SET);
  std::string text(static_cast<std::size_t>(size - from), '\0');
  text.resize(std::fread(text.data(), 1, text.size(), file));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const auto start = text.rfind('\n');
  return start == std::string::npos ? text : text.substr(start + 1);
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
    throw EngineError(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    if (said) ::dup2(::fileno(said), 2);
    std::string answer;
    int status = 0;
    try {
      answer = encode(simulate_on_simgrid(trace, matching, input));
    } catch (const std::exception& e) {
      answer = std::string(1, '\0') + e.what();
      status = 3;
    }
    write_all(fds[1], answer);
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
  const std::string last = last_line(said);
  if (said) std::fclose(said);
  if (!answer.empty() && answer[0] == '\0') throw EngineError(answer.substr(1));
  if (WIFSIGNALED(status)) {
    throw EngineError(std::string("the SimGrid replay ended with signal ") +
                      std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")" +
                      (last.empty() ? "" : ": " + last));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || answer.empty()) {
    throw EngineError("the SimGrid replay stopped without an answer (exit status " +
                      std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")" +
                      (last.empty() ? "" : ": " + last));
  }
  return decode(answer, input);
}

}  // namespace mpidle::analysis
