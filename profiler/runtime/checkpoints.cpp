#include "profiler/runtime/checkpoints.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "model/checkpoint_file.hpp"
#include "model/file_replace.hpp"
#include "mpi_fn.hpp"
#include "profiler/core/call_edges.hpp"
#include "profiler/core/log.hpp"
#include "profiler/finalize/profile_output.hpp"
#include "profiler/wrappers/call_scope.hpp"

namespace mpidle::profiler {
namespace {

namespace fs = std::filesystem;

// The first checkpoint comes early enough for a two-minute job to have one.
constexpr std::uint64_t kFirstCheckpointNs = 60'000'000'000;
// A checkpoint's write may take at most this share of the time between two: a
// slower filesystem stretches the interval (said once). Writes shorter than
// kSlowWriteNs never do: a loaded node's page cache, not a stalled filesystem.
constexpr double kMaxCostShare = 0.01;
constexpr std::uint64_t kSlowWriteNs = 100'000'000;
// The slowest tick rate any timer here has (ticks per ns): an edge placed with it
// before the rate is measured comes early, never late, and is placed again then.
constexpr double kSlowestTicksPerNs = 0.5;
constexpr std::uint64_t kRateMeasuredNs = 1'000'000;

double unix_now_s() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

class Schedule {
 public:
  void start(Context& context) {
    std::lock_guard lock(m_mutex);
    m_interval_ns = static_cast<std::uint64_t>(context.config().checkpoint) * 1'000'000'000;
    m_rank = context.rank();
    m_directory = run_directory_of(context) / model::kCheckpointDirectory;
    // In a log tree a rank that ends without MPI_Finalize publishes the staging
    // directory, checkpoints and all: the others' later ones follow it there.
    if (const auto& run = context.log_location().run) {
      m_published = run->final_path / model::kCheckpointDirectory;
    }
    m_ticks0 = now();
    m_ns0 = monotonic_ns();
    m_due_ns = m_ns0 + std::min(m_interval_ns, kFirstCheckpointNs);
    m_on = true;
    place_edge(m_ticks0, m_ns0);
    on_checkpoint_due([](Ticks t) { schedule().due(t); });
    m_watcher = std::thread([this] { watch(); });
  }

  void stop() {
    {
      std::lock_guard lock(m_mutex);  // waits for a checkpoint being written
      if (!m_on) return;
      m_on = false;
      set_checkpoint_edge(~Ticks{0});
    }
    {
      std::lock_guard lock(m_watch_mutex);
      m_stopping = true;
    }
    m_wake.notify_all();
    if (m_watcher.joinable()) m_watcher.join();
  }

  // A call ended past the edge.
  void due(Ticks ticks) {
    // Another thread writing it: this call goes on.
    std::unique_lock lock(m_mutex, std::try_to_lock);
    if (!lock.owns_lock() || !m_on) return;
    const std::uint64_t ns = monotonic_ns();
    if (ns >= m_due_ns) {
      if (Context* context = Context::current()) write(*context, "checkpoint");
      const std::uint64_t finished = monotonic_ns();
      const std::uint64_t interval = next_interval_ns(m_write_ns);
      m_due_ns += interval;
      if (m_due_ns <= finished) m_due_ns = finished + interval;
    }
    place_edge(ticks, ns);
  }

  void write_last(Context& context, const char* ended) {
    std::unique_lock lock(m_mutex);
    if (!m_on) return;
    write(context, ended);
  }

 private:
  // With m_mutex held.
  void write(Context& context, const char* ended) {
    const std::uint64_t began = monotonic_ns();
    try {
      model::Checkpoint checkpoint = rank_checkpoint(context, ended);
      checkpoint.header.sequence = ++m_sequence;
      checkpoint.header.written_unix_s = unix_now_s();
      checkpoint.header.interval_s = static_cast<double>(m_interval_ns) * 1e-9;
      checkpoint.header.previous_s = m_previous_s;
      checkpoint.header.build_s = static_cast<double>(monotonic_ns() - began) * 1e-9;
      follow_run();
      std::error_code ec;
      fs::create_directory(m_directory, ec);  // never the run directory: it may be gone
      std::string error;
      const fs::path file = m_directory / model::checkpoint_name(m_rank);
      const std::string bytes = model::encode_checkpoint(checkpoint);
      const std::uint64_t write_began = monotonic_ns();
      const bool written = model::replace_file(file, bytes, error);
      m_write_ns = monotonic_ns() - write_began;
      if (!written) {
        if (!m_said_failure) warn("cannot write the checkpoint " + file.string() + ": " + error);
        m_said_failure = true;
      } else {
        m_sequence_written.store(m_sequence, std::memory_order_release);
        m_stall_since_unix_s.store(0, std::memory_order_relaxed);
        ::unlink(stall_file().c_str());  // the checkpoint is newer
      }
    } catch (const std::exception& e) {
      if (!m_said_failure) warn(std::string("could not write a checkpoint: ") + e.what());
      m_said_failure = true;
    }
    m_previous_s = static_cast<double>(monotonic_ns() - began) * 1e-9;
  }

  // With m_mutex held: where the run directory went if another rank published it.
  void follow_run() {
    std::error_code ec;
    if (m_published.empty() || fs::exists(m_directory.parent_path(), ec)) return;
    if (fs::exists(m_published.parent_path(), ec)) m_directory = m_published;
  }

  // The interval after a checkpoint whose write took `write_ns`: a slow filesystem
  // stretches it so that writing checkpoints takes at most kMaxCostShare of the run.
  std::uint64_t next_interval_ns(std::uint64_t write_ns) {
    const auto bound = static_cast<std::uint64_t>(static_cast<double>(write_ns) / kMaxCostShare);
    if (write_ns < kSlowWriteNs || bound <= m_interval_ns) return m_interval_ns;
    if (!m_said_slow) {
      warn("writing a checkpoint took " + std::to_string(static_cast<double>(write_ns) * 1e-9) +
           " s; the next ones are spaced " + std::to_string(static_cast<double>(bound) * 1e-9) +
           " s apart (at most 1% of the run)");
    }
    m_said_slow = true;
    return bound;
  }

  // The edge in ticks for m_due_ns, with the tick rate measured since start.
  void place_edge(Ticks ticks, std::uint64_t ns) {
    double rate = kSlowestTicksPerNs;
    if (ns - m_ns0 >= kRateMeasuredNs && ticks > m_ticks0) {
      rate = static_cast<double>(ticks - m_ticks0) / static_cast<double>(ns - m_ns0);
    }
    const std::uint64_t ahead = m_due_ns > ns ? m_due_ns - ns : 0;
    set_checkpoint_edge(ticks + static_cast<Ticks>(static_cast<double>(ahead) * rate));
    m_watch_due_ns.store(m_due_ns, std::memory_order_release);
  }

  fs::path stall_file() const {
    return m_directory / (model::checkpoint_name(m_rank) + model::kStallSuffix);
  }

  // Sleeps until a checkpoint's time has passed by a grace; if no call wrote it,
  // notes what the rank's threads are in. Reads only each thread's one word.
  void watch() {
    std::unique_lock lock(m_watch_mutex);
    const std::uint64_t interval = std::max<std::uint64_t>(m_interval_ns, 1'000'000'000);
    const std::uint64_t grace =
        std::clamp<std::uint64_t>(interval / 4, 250'000'000, 60'000'000'000);
    std::uint64_t check_ns = m_watch_due_ns.load(std::memory_order_acquire) + grace;
    while (!m_stopping) {
      const std::uint64_t ns = monotonic_ns();
      if (ns < check_ns) {
        m_wake.wait_for(lock, std::chrono::nanoseconds(check_ns - ns));
        continue;
      }
      const std::uint64_t due = m_watch_due_ns.load(std::memory_order_acquire);
      if (due + grace > ns) {
        check_ns = due + grace;  // a checkpoint moved the due time on
        continue;
      }
      note_stall(due);
      check_ns = ns + interval;
    }
  }

  void note_stall(std::uint64_t due_ns) {
    // The schedule's directory and rank; a checkpoint being written is waited for.
    std::lock_guard schedule_lock(m_mutex);
    Context* context = Context::current();
    if (!m_on || !context) return;
    const double now_unix = unix_now_s();
    const double due_unix = now_unix - static_cast<double>(monotonic_ns() - due_ns) * 1e-9;
    double expected = 0;
    m_stall_since_unix_s.compare_exchange_strong(expected, due_unix, std::memory_order_relaxed);
    nlohmann::json threads = nlohmann::json::array();
    for (const ThreadState* t : context->threads()) {
      const std::uint8_t in = t->in_mpi_now();
      if (in == 0) {
        threads.push_back({{"in", nullptr}});
      } else if (in == detail::kOwnWork) {
        threads.push_back({{"in", "mpidle"}});
      } else if (in == detail::kLaterFunction || in > kMpiFnCount) {
        threads.push_back({{"in", "an MPI call"}});
      } else {
        threads.push_back({{"in", kMpiFnNames[in - 1]}});
      }
    }
    const nlohmann::json note = {
        {"schema", "mpidle-stall/1"},
        {"rank", m_rank},
        {"as_of_unix_s", now_unix},
        {"no_call_ended_since_unix_s", m_stall_since_unix_s.load(std::memory_order_relaxed)},
        {"last_checkpoint_sequence", m_sequence_written.load(std::memory_order_acquire)},
        {"threads", std::move(threads)}};
    std::string error;
    std::error_code ec;
    fs::create_directory(m_directory, ec);
    model::replace_file(stall_file(), note.dump() + '\n', error);
  }

  std::mutex m_mutex;  // one checkpoint at a time; the schedule's fields
  bool m_on = false;
  int m_rank = 0;
  fs::path m_directory;
  fs::path m_published;  // in a log tree: the run's final place's checkpoints
  std::uint64_t m_interval_ns = 0, m_due_ns = 0, m_ns0 = 0, m_sequence = 0;
  Ticks m_ticks0 = 0;
  bool m_said_failure = false, m_said_slow = false;
  double m_previous_s = 0;       // the last checkpoint's whole time
  std::uint64_t m_write_ns = 0;  // and its write's
  // Shared with the watcher.
  std::atomic<std::uint64_t> m_watch_due_ns{0}, m_sequence_written{0};
  std::atomic<double> m_stall_since_unix_s{0};

  // The watcher's own.
  std::mutex m_watch_mutex;
  std::condition_variable m_wake;
  bool m_stopping = false;
  std::thread m_watcher;

 public:
  static Schedule& schedule() {
    // Never destroyed: a call may cross the edge from an exit handler.
    static auto& s = *new Schedule;
    return s;
  }
};

}  // namespace

void start_checkpoints(Context& context) {
  if (context.config().checkpoint <= 0) return;
  Schedule::schedule().start(context);
}

void clear_checkpoints(const Context& context) {
  std::error_code ignored;
  fs::remove_all(run_directory_of(context) / model::kCheckpointDirectory, ignored);
}

void stop_checkpoints() {
  Schedule::schedule().stop();
}

void write_last_checkpoint(Context& context, const char* ended) {
  Schedule::schedule().write_last(context, ended);
}

}  // namespace mpidle::profiler
