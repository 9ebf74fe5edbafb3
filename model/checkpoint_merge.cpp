#include "checkpoint_merge.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mpidle::model {
namespace {

namespace fs = std::filesystem;

// A checkpoint is a few MiB at most (10^4 callsites); a larger file is not one.
constexpr std::uintmax_t kMaxCheckpointBytes = std::uintmax_t{1} << 30;

std::string iso_of(double unix_s) {
  const auto t = static_cast<std::time_t>(std::floor(unix_s));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

std::vector<Checkpoint> read_checkpoints(const fs::path& run_directory,
                                         std::vector<std::string>& unreadable) {
  std::vector<Checkpoint> out;
  std::error_code ec;
  const fs::path dir = run_directory / kCheckpointDirectory;
  std::vector<std::pair<int, fs::path>> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const int rank = checkpoint_rank(entry.path().filename().string());
    // Only regular files: a link is not what the rank wrote.
    if (rank >= 0 && entry.is_regular_file(ec) && !entry.is_symlink(ec)) {
      files.emplace_back(rank, entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& [rank, path] : files) {
    const std::string name = path.filename().string();
    try {
      const auto size = fs::file_size(path, ec);
      if (ec || size > kMaxCheckpointBytes) throw std::runtime_error("cannot be read");
      std::ifstream in(path, std::ios::binary);
      std::ostringstream bytes;
      bytes << in.rdbuf();
      if (!in) throw std::runtime_error("cannot be read");
      Checkpoint c = decode_checkpoint(bytes.str());
      if (c.header.rank != rank) throw std::runtime_error("holds another rank's checkpoint");
      out.push_back(std::move(c));
    } catch (const std::exception& e) {
      unreadable.push_back(name + ": " + e.what());
    }
  }
  return out;
}

bool has_checkpoints(const fs::path& run_directory) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_directory / kCheckpointDirectory, ec)) {
    if (checkpoint_rank(entry.path().filename().string()) >= 0) return true;
  }
  return false;
}

std::string rank_ranges(const std::vector<int>& sorted_ranks) {
  std::string out;
  for (std::size_t i = 0; i < sorted_ranks.size();) {
    std::size_t j = i;
    while (j + 1 < sorted_ranks.size() && sorted_ranks[j + 1] == sorted_ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted_ranks[i]);
    if (j > i) out += '-' + std::to_string(sorted_ranks[j]);
    i = j + 1;
  }
  return out;
}

ProfileDocument merge_checkpoints(std::vector<Checkpoint> checkpoints,
                                  const std::vector<std::string>& unreadable) {
  if (checkpoints.empty()) throw std::runtime_error("no readable checkpoint");
  // A directory used again may hold an earlier run's files: the run of the newest
  // checkpoint is the one merged, the others are named.
  const auto newest_file = std::max_element(
      checkpoints.begin(), checkpoints.end(), [](const Checkpoint& a, const Checkpoint& b) {
        return a.header.written_unix_s < b.header.written_unix_s;
      });
  const RunInfo run_of_newest = newest_file->header.run;
  const std::int32_t size_of_newest = newest_file->header.size;
  std::vector<std::string> left_out = unreadable;
  std::erase_if(checkpoints, [&](const Checkpoint& c) {
    const bool other = c.header.size != size_of_newest ||
                       c.header.run.start != run_of_newest.start ||
                       c.header.run.executable != run_of_newest.executable;
    if (other) {
      left_out.push_back(checkpoint_name(c.header.rank) + ": of another run (started " +
                         c.header.run.start + ")");
    }
    return other;
  });
  std::sort(checkpoints.begin(), checkpoints.end(),
            [](const Checkpoint& a, const Checkpoint& b) { return a.header.rank < b.header.rank; });
  const CheckpointHeader& first = checkpoints.front().header;
  GlobalMinima minima;
  ProfileSummary summary;
  double wall_s = 0, oldest = 0, newest = 0;
  nlohmann::json ranks = nlohmann::json::array();
  std::vector<int> present;
  for (std::size_t i = 0; i < checkpoints.size(); ++i) {
    const Checkpoint& c = checkpoints[i];
    const CheckpointHeader& h = c.header;
    if (i > 0 && h.rank == checkpoints[i - 1].header.rank) continue;
    merge_minima(minima, c.minima);
    merge_summaries(summary, c.summary);
    wall_s = std::max(wall_s, h.wall_s);
    oldest = i == 0 ? h.written_unix_s : std::min(oldest, h.written_unix_s);
    newest = std::max(newest, h.written_unix_s);
    present.push_back(h.rank);
    // One row per rank: bounded by the ranks the run has, as `ranks` is.
    ranks.push_back({{"rank", h.rank},
                     {"written", iso_of(h.written_unix_s)},
                     {"written_unix_s", h.written_unix_s},
                     {"wall_s", h.wall_s},
                     {"interval_s", h.interval_s},
                     {"sequence", h.sequence},
                     {"ended", h.ended}});
  }
  summary.minima = minima;
  std::vector<int> missing;
  for (int r = 0, k = 0; r < first.size; ++r) {
    if (k < static_cast<int>(present.size()) && present[static_cast<std::size_t>(k)] == r) {
      ++k;
    } else {
      missing.push_back(r);
    }
  }
  RunInfo run = first.run;
  run.wall_s = wall_s;
  run.ended = "checkpoint";
  ProfileDocument document = build_profile(summary, run);
  nlohmann::json job = first.job;
  if (job.is_object()) job["end"] = iso_of(newest);
  document.profile["job"] = job;
  document.profile["checkpoints"] = {{"ranks_expected", first.size},
                                     {"ranks_found", present.size()},
                                     {"missing_ranks", rank_ranges(missing)},
                                     {"oldest", iso_of(oldest)},
                                     {"newest", iso_of(newest)},
                                     {"unreadable", left_out},
                                     {"ranks", std::move(ranks)}};
  return document;
}

ProfileDocument profile_from_checkpoints(const fs::path& run_directory) {
  std::vector<std::string> unreadable;
  auto checkpoints = read_checkpoints(run_directory, unreadable);
  if (checkpoints.empty()) {
    throw std::runtime_error(
        (run_directory / kCheckpointDirectory).string() + ": no readable checkpoint" +
        (unreadable.empty() ? std::string() : " (" + unreadable.front() + ")"));
  }
  return merge_checkpoints(std::move(checkpoints), unreadable);
}

}  // namespace mpidle::model
