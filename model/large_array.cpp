#include "large_array.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace mpidle::model {
namespace {

struct FileBacking {
  std::mutex mutex;
  std::string directory;
  std::size_t min_bytes = 0;
  std::map<const void*, std::size_t> mapped;  // block → mapped length
  LargeArrayStats stats;
};

FileBacking& backing() {
  static auto* b = new FileBacking;  // never destroyed: arrays may outlive static destructors
  return *b;
}

// Blocks mapped now: frees of ordinary blocks skip the lock while it is 0.
std::atomic<std::uint64_t> g_mapped_blocks{0};
std::atomic<bool> g_backing_on{false};

std::size_t round_up(std::size_t bytes, std::size_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

// A file of `length` bytes nobody else can open: O_TMPFILE where the file system
// has it, else a named file unlinked at once.
int unlinked_file(const std::string& directory, std::string& why) {
  int fd = ::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = directory + "/mpidle-array-XXXXXX";
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    why = "cannot create a file in " + directory + ": " + std::strerror(errno);
    return -1;
  }
  ::unlink(name.c_str());
  return fd;
}

// The block as a shared mapping of a new file; nullptr (and `why`) when it cannot be.
void* map_file_block(const std::string& directory, std::size_t length, std::string& why) {
  const int fd = unlinked_file(directory, why);
  if (fd < 0) return nullptr;
  // A file in memory would be no lighter than the heap, and needs swap to leave it.
  if (struct statfs fs{};
      ::fstatfs(fd, &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC)) {
    why = directory + " is in memory (tmpfs); point MPIDLE_OUTPUT at a disk";
    ::close(fd);
    return nullptr;
  }
  // Blocks reserved now, so that a full disk is an error here and never a SIGBUS
  // when a page is first written.
  if (const int err = ::posix_fallocate(fd, 0, static_cast<off_t>(length)); err != 0) {
    why = "cannot reserve " + std::to_string(length >> 20) + " MiB in " + directory + ": " +
          std::strerror(err);
    ::close(fd);
    return nullptr;
  }
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps the file
  if (p == MAP_FAILED) {
    why = std::string("cannot map a file: ") + std::strerror(err);
    return nullptr;
  }
  return p;
}

}  // namespace

void back_large_arrays_by_files(const std::string& directory, std::size_t min_bytes) {
  auto& b = backing();
  std::lock_guard lock(b.mutex);
  b.directory = directory;
  b.min_bytes = std::max<std::size_t>(min_bytes, 1);
  g_backing_on.store(!directory.empty(), std::memory_order_relaxed);
}

LargeArrayStats large_array_stats() {
  auto& b = backing();
  std::lock_guard lock(b.mutex);
  return b.stats;
}

void* allocate_large_array(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (g_backing_on.load(std::memory_order_relaxed)) {
    auto& b = backing();
    std::lock_guard lock(b.mutex);
    if (!b.directory.empty() && bytes >= b.min_bytes) {
      std::string why;
      const std::size_t length = round_up(bytes, static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
      if (void* p = map_file_block(b.directory, length, why)) {
        b.mapped.emplace(p, length);
        ++b.stats.file_blocks;
        ++b.stats.file_blocks_ever;
        b.stats.file_bytes += length;
        g_mapped_blocks.fetch_add(1, std::memory_order_relaxed);
        return p;
      }
      ++b.stats.failures;
      b.stats.last_failure = why;
    }
  }
  return ::operator new(bytes);
}

void free_large_array(void* block, std::size_t) {
  if (block == nullptr) return;
  if (g_mapped_blocks.load(std::memory_order_relaxed) > 0) {
    auto& b = backing();
    std::lock_guard lock(b.mutex);
    if (auto it = b.mapped.find(block); it != b.mapped.end()) {
      ::munmap(block, it->second);  // the file goes with its last mapping
      --b.stats.file_blocks;
      b.stats.file_bytes -= it->second;
      b.mapped.erase(it);
      g_mapped_blocks.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
  }
  ::operator delete(block);
}

bool is_file_backed(const void* block) {
  auto& b = backing();
  std::lock_guard lock(b.mutex);
  return b.mapped.count(block) > 0;
}

}  // namespace mpidle::model
