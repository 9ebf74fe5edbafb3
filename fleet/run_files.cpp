#include "run_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "fleet/records/job_record.hpp"
#include "fleet/records/log_tree.hpp"
#include "model/checkpoint_file.hpp"

namespace mpidle::fleet {
namespace {

namespace fs = std::filesystem;

// A log tree is YEAR/MONTH/DAY/run; anything much deeper is not one, and each level
// holds a descriptor open.
constexpr int kMaxDepth = 32;
constexpr const char* kRecordNames[] = {fleet::kJobRecordFile, "profile.json"};

class Fd {
 public:
  explicit Fd(int fd = -1) : m_fd(fd) {}
  Fd(Fd&& other) noexcept : m_fd(other.m_fd) { other.m_fd = -1; }
  Fd& operator=(Fd&& other) noexcept {
    std::swap(m_fd, other.m_fd);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (m_fd >= 0) ::close(m_fd);
  }
  int get() const { return m_fd; }
  bool ok() const { return m_fd >= 0; }

 private:
  int m_fd;
};

// A directory below `parent`, never through a link.
Fd open_directory(int parent, const char* name) {
  return Fd(::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

std::int64_t mtime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

struct Walk {
  std::FILE* messages;  // nullptr: refusals are counted, not said
  WalkCounts& counts;
  std::vector<RunFile>& found;
  fs::path root;

  void refuse(const fs::path& path, const char* why) {
    if (messages) std::fprintf(messages, "mpidle fleet: %s: %s; refused\n", path.c_str(), why);
    ++counts.refused;
  }

  // `name` in `dir` as it is: nothing where it is not there or is a link (refused,
  // with `*refused` set).
  std::optional<struct stat> entry(int dir, const char* name, const fs::path& path,
                                   bool* refused = nullptr) {
    struct stat st {};
    if (::fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
    if (S_ISLNK(st.st_mode)) {
      refuse(path, "a symbolic link (a run is what the tree holds, not what a link names)");
      if (refused) *refused = true;
      return std::nullopt;
    }
    return st;
  }

  // A run found, its record `st` as the walk saw it.
  void add(const fs::path& run, const fs::path& record, const struct stat& st, uid_t run_owner,
           bool checkpoints) {
    RunFile f;
    f.run = run;
    f.record = record;
    f.root = root;
    f.checkpoints = checkpoints;
    f.size = static_cast<std::int64_t>(st.st_size);
    f.mtime_ns = mtime_ns(st);
    f.device = st.st_dev;
    f.inode = st.st_ino;
    f.record_owner = st.st_uid;
    f.run_owner = run_owner;
    found.push_back(std::move(f));
  }

  // `dir`'s job.json, else its profile.json, as the record of `run`: true if found
  // (or refused as a link, which also ends the search in this directory).
  bool record_in(int dir, const fs::path& path, const fs::path& run, uid_t run_owner) {
    for (const char* name : kRecordNames) {
      bool refused = false;
      const auto st = entry(dir, name, path / name, &refused);
      if (refused) return true;
      if (!st || !S_ISREG(st->st_mode)) continue;
      add(run, path / name, *st, run_owner, false);
      return true;
    }
    return false;
  }

  // `dir`'s checkpoints directory as the record of `run`, if it holds a rank's:
  // true if found (or refused as a link).
  bool checkpoints_in(int dir, const fs::path& path, const fs::path& run, uid_t run_owner) {
    bool refused = false;
    const fs::path record = path / model::kCheckpointDirectory;
    const auto st = entry(dir, model::kCheckpointDirectory, record, &refused);
    if (refused) return true;
    if (!st || !S_ISDIR(st->st_mode)) return false;
    Fd checkpoints = open_directory(dir, model::kCheckpointDirectory);
    DIR* d = checkpoints.ok() ? ::fdopendir(::dup(checkpoints.get())) : nullptr;
    if (!d) return false;
    bool any = false;
    while (const dirent* e = ::readdir(d)) any = any || model::checkpoint_rank(e->d_name) >= 0;
    ::closedir(d);
    if (!any) return false;
    add(run, record, *st, run_owner, true);
    return true;
  }

  // Whether `dir` is a run directory (its record found, or refused).
  bool run_record(int dir, const fs::path& path, uid_t owner) {
    if (record_in(dir, path, path, owner)) return true;
    // A run that ended without MPI_Finalize: its ranks' checkpoints merged, else
    // its lowest rank's partial record.
    if (checkpoints_in(dir, path, path, owner)) return true;
    // A run that ended without MPI_Finalize: its lowest rank's partial record.
    bool refused = false;
    const auto partial_stat = entry(dir, "partial", path / "partial", &refused);
    if (refused) return true;
    if (!partial_stat || !S_ISDIR(partial_stat->st_mode)) return false;
    Fd partial = open_directory(dir, "partial");
    DIR* d = partial.ok() ? ::fdopendir(::dup(partial.get())) : nullptr;
    if (!d) return false;
    std::optional<std::pair<long, std::string>> lowest;
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind("rank-", 0) != 0) continue;
      const long rank = std::strtol(name.c_str() + 5, nullptr, 10);
      if (!lowest || rank < lowest->first) lowest = {rank, name};
    }
    ::closedir(d);
    if (!lowest) return false;
    const fs::path rank_path = path / "partial" / lowest->second;
    const auto rank_stat = entry(partial.get(), lowest->second.c_str(), rank_path, &refused);
    if (refused) return true;
    if (!rank_stat || !S_ISDIR(rank_stat->st_mode)) return false;
    Fd rank_dir = open_directory(partial.get(), lowest->second.c_str());
    return rank_dir.ok() && record_in(rank_dir.get(), rank_path, path, owner);
  }

  void directory(int dir, const fs::path& path, int depth) {
    struct stat self {};
    if (::fstat(dir, &self) != 0) return;
    if (run_record(dir, path, self.st_uid)) return;
    if (depth >= kMaxDepth) return;
    DIR* d = ::fdopendir(::dup(dir));
    if (!d) return;
    std::vector<std::string> names;
    std::vector<std::string> staging;
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      // Staging directories (runs still being written, or killed) are read for
      // their checkpoints alone; other hidden ones not at all.
      if (is_staging_name(name)) staging.push_back(name);
      if (name.empty() || name.front() == '.') continue;
      names.push_back(name);
    }
    ::closedir(d);
    for (const auto& name : staging) {
      const auto st = entry(dir, name.c_str(), path / name);
      if (!st || !S_ISDIR(st->st_mode)) continue;
      Fd sub = open_directory(dir, name.c_str());
      if (!sub.ok()) continue;
      // Keyed by the place it would have had: published later, it is the same job.
      const std::string final_name =
          name.substr(1, name.size() - 1 - std::string(kStagingSuffix).size());
      checkpoints_in(sub.get(), path / name, path / final_name, st->st_uid);
    }
    for (const auto& name : names) {
      const fs::path child = path / name;
      const auto st = entry(dir, name.c_str(), child);
      if (!st || !S_ISDIR(st->st_mode)) continue;
      Fd sub = open_directory(dir, name.c_str());
      // Unreadable (permission), or replaced by a link since it was listed.
      if (!sub.ok()) {
        if (errno == ELOOP || errno == ENOTDIR) refuse(child, "no longer a directory (a link?)");
        continue;
      }
      directory(sub.get(), child, depth + 1);
    }
  }
};

}  // namespace

std::vector<RunFile> find_run_files(const std::vector<std::string>& roots, std::FILE* messages,
                                    WalkCounts& counts) {
  std::vector<RunFile> found;
  for (const auto& root : roots) {
    Fd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.ok()) {
      std::fprintf(messages, "mpidle fleet: %s: not a directory; skipped\n", root.c_str());
      ++counts.skipped;
      continue;
    }
    Walk walk{messages, counts, found, root};
    walk.directory(dir.get(), root, 0);
  }
  return found;
}

namespace {

// The directory holding `found`'s record, opened from its root one component at a
// time without following links; the record's own name is left in `name`.
Fd record_parent(const RunFile& found, std::string& name) {
  Fd dir(::open(found.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.ok()) throw std::runtime_error("its log tree cannot be opened");
  const fs::path relative = found.record.lexically_relative(found.root);
  if (relative.empty() || *relative.begin() == "..") {
    throw std::runtime_error("not below its log tree");
  }
  std::vector<std::string> parts;
  for (const auto& part : relative) parts.push_back(part.string());
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] == ".") continue;
    dir = open_directory(dir.get(), parts[i].c_str());
    if (!dir.ok())
      throw std::runtime_error("its directory was replaced (a link?) since it was found");
  }
  name = parts.back();
  return dir;
}

// A regular file's bytes, up to `limit`.
std::string read_all(int fd, std::size_t limit) {
  std::string bytes;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("cannot be read: ") + std::strerror(errno));
    if (n == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(n));
    if (bytes.size() > limit) throw std::runtime_error("too large to be a record");
  }
  return bytes;
}

// A checkpoint holds a rank's tables: megabytes at 10^4 callsites, never this much.
constexpr std::size_t kMaxCheckpointBytes = std::size_t{1} << 30;

}  // namespace

std::vector<std::pair<std::string, std::string>> read_run_checkpoints(const RunFile& found) {
  std::string name;
  const Fd parent = record_parent(found, name);
  Fd dir = open_directory(parent.get(), name.c_str());
  struct stat st {};
  if (!dir.ok() || ::fstat(dir.get(), &st) != 0 || st.st_dev != found.device ||
      st.st_ino != found.inode) {
    throw std::runtime_error("replaced (a link?) since it was found");
  }
  std::vector<std::string> names;
  DIR* d = ::fdopendir(::dup(dir.get()));
  if (!d) throw std::runtime_error("cannot be read");
  while (const dirent* e = ::readdir(d)) {
    if (model::checkpoint_rank(e->d_name) >= 0) names.emplace_back(e->d_name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& n : names) {
    Fd file(::openat(dir.get(), n.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat fst {};
    if (!file.ok() || ::fstat(file.get(), &fst) != 0 || !S_ISREG(fst.st_mode)) continue;
    try {
      files.emplace_back(n, read_all(file.get(), kMaxCheckpointBytes));
    } catch (const std::exception&) {
      // left out: the merge names the ranks it lacks
    }
  }
  return files;
}

std::string read_run_file(const RunFile& found) {
  std::string name;
  const Fd dir = record_parent(found, name);
  Fd file(::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!file.ok() || ::fstat(file.get(), &st) != 0) {
    throw std::runtime_error(errno == ELOOP ? "replaced by a symbolic link since it was found"
                                            : "cannot be read");
  }
  if (!S_ISREG(st.st_mode) || st.st_dev != found.device || st.st_ino != found.inode) {
    throw std::runtime_error("replaced by another file since it was found");
  }
  return read_all(file.get(), SIZE_MAX);
}

std::string identity_of(const RunFile& found) {
  return std::to_string(found.device) + ":" + std::to_string(found.inode);
}

bool still_holds(const fs::path& run, const std::string& identity) {
  // The record the walk would find there now, found as the walk finds it.
  Fd dir(::open(run.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  struct stat self {};
  if (!dir.ok() || ::fstat(dir.get(), &self) != 0) return false;
  WalkCounts counts;
  std::vector<RunFile> found;
  Walk walk{nullptr, counts, found, run};
  walk.run_record(dir.get(), run, self.st_uid);
  return !found.empty() && identity_of(found.front()) == identity;
}

}  // namespace mpidle::fleet
