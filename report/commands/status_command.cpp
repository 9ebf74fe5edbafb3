// mpidle status: a job that has not finished, from its ranks' checkpoints and stall
// notes (docs/centre.md, "A live view"); or, for a log tree or any directory above
// runs, one line per such job. Reads files only.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>

#include "model/checkpoint_merge.hpp"
#include "report/commands/command.hpp"
#include "report/text/status_text.hpp"
#include "report/text/text_format.hpp"
#include "report/text/text_report.hpp"

namespace mpidle::report {
namespace {

namespace fs = std::filesystem;

// A log tree is LOG_DIR/YYYY/MM/DD/run; deeper than this is not searched.
constexpr int kMaxSearchDepth = 6;

double unix_now_s() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::map<int, model::StallNote> stall_notes(const fs::path& run) {
  std::map<int, model::StallNote> notes;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run / model::kCheckpointDirectory, ec)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = model::kStallSuffix;
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const int rank = model::checkpoint_rank(name.substr(0, name.size() - suffix.size()));
    if (rank < 0 || entry.is_symlink(ec)) continue;
    if (auto note = model::read_stall_note(entry.path()); note && note->rank == rank) {
      notes[rank] = std::move(*note);
    }
  }
  return notes;
}

bool has_whole_profile(const fs::path& run) {
  std::error_code ec;
  return fs::exists(run / "profile.json", ec);
}

// Run directories below `root` with checkpoints and no profile: staging ones too
// (a killed job's stays there), never through a link.
void unfinished_runs(const fs::path& dir, int depth, std::vector<fs::path>& out) {
  if (model::has_checkpoints(dir)) {
    if (!has_whole_profile(dir)) out.push_back(dir);
    return;
  }
  if (depth >= kMaxSearchDepth) return;
  std::error_code ec;
  std::vector<fs::path> children;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec) && !entry.is_symlink(ec)) children.push_back(entry.path());
  }
  std::sort(children.begin(), children.end());
  for (const auto& child : children) unfinished_runs(child, depth + 1, out);
}

int status_of_tree(const fs::path& root, double now) {
  std::vector<fs::path> runs;
  unfinished_runs(root, 0, runs);
  if (runs.empty()) {
    throw UsageError(root.string() +
                     ": no unfinished run with checkpoints here (a run has its first 60 s after "
                     "MPI_Init, or after MPIDLE_CHECKPOINT seconds)");
  }
  std::printf("%-12s %7s %9s %7s %7s  %s\n", "checkpoint", "ranks", "stalled", "MPI%", "wait%",
              "run");
  for (const auto& run : runs) {
    try {
      const auto p = model::read_profile(run);
      if (!p.checkpoints) continue;
      const auto notes = stall_notes(run);
      double newest = 0;
      std::map<int, const model::CheckpointRank*> by_rank;
      for (const auto& r : p.checkpoints->ranks) {
        newest = std::max(newest, r.written_unix_s);
        by_rank[r.rank] = &r;
      }
      std::size_t stalled = 0;
      for (int r = 0; r < p.checkpoints->ranks_expected; ++r) {
        const auto c = by_rank.find(r);
        const auto n = notes.find(r);
        const auto s = rank_state(c == by_rank.end() ? nullptr : c->second,
                                  n == notes.end() ? nullptr : &n->second, now);
        stalled += s.kind == RankState::stalled || s.kind == RankState::silent;
      }
      double wall = 0, mpi = 0, wait = 0;
      const Estimate e = estimate_of(p);
      for (const auto& r : p.ranks) {
        wall += r.wall_s;
        mpi += r.mpi_s;
        wait += wait_of(r, e);
      }
      std::printf("%-12s %7lld %9zu %6.1f%% %6.1f%%  %s\n",
                  (duration_text(now - newest) + " ago").c_str(),
                  static_cast<long long>(p.checkpoints->ranks_expected), stalled,
                  percent(mpi, wall), percent(wait, wall), run.c_str());
    } catch (const std::exception& ex) {
      std::printf("%-12s %7s %9s %7s %7s  %s (%s)\n", "-", "-", "-", "-", "-", run.c_str(),
                  ex.what());
    }
  }
  return 0;
}

}  // namespace

int status_command(Args args) {
  std::string where;
  StatusOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--top" || a == "--ranks") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      (a == "--top" ? options.top : options.ranks) = top_option(args[++i]);
    } else {
      take_positional(a, where, "a run directory or a log tree");
    }
  }
  if (where.empty()) throw UsageError("status needs a run directory or a log tree");
  std::error_code ec;
  const fs::path path = where;
  if (!fs::is_directory(path, ec)) throw UsageError(where + " is not a directory");
  const double now = unix_now_s();
  if (has_whole_profile(path)) {
    std::printf("%s finished (MPI_Finalize): mpidle report %s\n", where.c_str(), where.c_str());
    return 0;
  }
  if (!model::has_checkpoints(path)) return status_of_tree(path, now);
  model::Profile profile;
  try {
    profile = model::read_profile(path);
  } catch (const std::exception& e) {
    throw UsageError(where + ": " + e.what());
  }
  std::fputs(format_status(profile, stall_notes(path), now, options).c_str(), stdout);
  return 0;
}

}  // namespace mpidle::report
