#pragma once
// Progress of long work on a trace on stderr (never stdout, which holds a
// command's result or the application's output): one line per stage, with the
// time so far, for traces of a million events and more, from the post-mortem
// commands and from rank 0 of a traced run's finalize. Smaller traces take under
// a second and print nothing.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace mpidle::model {

inline constexpr std::uint64_t kProgressEvents = 1'000'000;

class StageLog {
 public:
  StageLog(std::string command, std::uint64_t events, std::FILE* out = stderr)
      : m_command(std::move(command)),
        m_events(events),
        m_out(out),
        m_start(std::chrono::steady_clock::now()) {}
  bool on() const { return m_events >= kProgressEvents; }
  // "mpidle sync: synchronizing 4.0 M events (1.3 s so far)"
  void operator()(const char* stage) const {
    if (!on()) return;
    const double so_far =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    std::fprintf(m_out, "%s: %s %.1f M events (%.1f s so far)\n", m_command.c_str(), stage,
                 static_cast<double>(m_events) * 1e-6, so_far);
    std::fflush(m_out);
  }

 private:
  std::string m_command;
  std::uint64_t m_events;
  std::FILE* m_out;
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace mpidle::model
