#include "simgrid_client.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <type_traits>

#include "model/machine_model.hpp"

extern char** environ;

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

std::string encode_prediction_bytes(const Prediction& p) {
  Writer w;
  w.put(std::uint8_t{1});
  w.put(static_cast<std::uint64_t>(p.engine.size()));
  w.m_bytes += p.engine;
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

Prediction decode_prediction_bytes(const std::string& bytes, const PredictionInput& input) {
  Reader r(bytes);
  if (r.get<std::uint8_t>() != 1) throw EngineError("the SimGrid replay gave no answer");
  Prediction p;
  const auto engine = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < engine && i < 256; ++i) p.engine += r.get<char>();
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

std::string encode_prediction(const Prediction& p) {
  return encode_prediction_bytes(p);
}

Prediction decode_prediction(const std::string& bytes, const PredictionInput& input) {
  return decode_prediction_bytes(bytes, input);
}

nlohmann::json simgrid_request(const std::filesystem::path& trace_file,
                               const PredictionInput& input) {
  return {{"trace", trace_file.string()},
          {"machine", model::machine_to_json(input.machine)},
          {"cpu_scale", input.cpu_scale},
          {"hosts", input.hosts}};
}

PredictionInput input_of_request(const nlohmann::json& request, std::filesystem::path* trace_file) {
  PredictionInput input;
  *trace_file = request.at("trace").get<std::string>();
  input.machine = model::machine_from_json(request.at("machine"), "the request's machine");
  input.cpu_scale = request.at("cpu_scale").get<double>();
  input.hosts = request.at("hosts").get<std::vector<std::string>>();
  return input;
}

Prediction collect_prediction(int out, pid_t pid, std::FILE* said, const PredictionInput& input) {
  std::string answer;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(out, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string last = last_line(said);
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
  return decode_prediction_bytes(answer, input);
}

Prediction predict_with_helper(const std::filesystem::path& helper,
                               const std::filesystem::path& trace_file,
                               const PredictionInput& input) {
  char request_path[] = "/tmp/mpidle-simgrid-XXXXXX";
  const int request_fd = ::mkstemp(request_path);
  if (request_fd < 0) throw EngineError(std::string("a request file: ") + std::strerror(errno));
  ::close(request_fd);
  struct Remove {
    const char* path;
    ~Remove() { ::unlink(path); }
  } remove{request_path};
  {
    std::ofstream request(request_path);
    request << simgrid_request(trace_file, input).dump();
    if (!request) throw EngineError(std::string("cannot write ") + request_path);
  }
  int out[2];
  if (::pipe(out) != 0) throw EngineError(std::string("pipe: ") + std::strerror(errno));
  std::FILE* said = std::tmpfile();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  if (said) posix_spawn_file_actions_adddup2(&actions, ::fileno(said), 2);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  const std::string program = helper.string();
  char* argv[] = {const_cast<char*>(program.c_str()), request_path, nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (spawned != 0) {
    ::close(out[0]);
    if (said) std::fclose(said);
    throw EngineError("cannot run " + program + ": " + std::strerror(spawned));
  }
  return collect_prediction(out[0], pid, said, input);
}

}  // namespace mpidle::analysis
