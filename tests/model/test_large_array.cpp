// The per-record arrays of an out-of-core finalize: file-backed blocks hold what
// is written to them, stay invisible in the directory, go with their array, and
// fall back to memory (counted, with the reason) where no file can be made.
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/large_array.hpp"

using namespace mpidle::model;
namespace fs = std::filesystem;

namespace {

fs::path empty_dir(const char* name) {
  const fs::path dir =
      fs::temp_directory_path() / ("mpidle-test-large-array-" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The process' mappings of files in `dir` (the unlinked files show as deleted).
int mappings_in(const fs::path& dir) {
  std::ifstream maps("/proc/self/maps");
  int n = 0;
  for (std::string line; std::getline(maps, line);)
    n += line.find(dir.string()) != std::string::npos;
  return n;
}

// Turns the file backing off however a test ends.
struct Backing {
  Backing(const fs::path& dir, std::size_t min_bytes) {
    back_large_arrays_by_files(dir.string(), min_bytes);
  }
  ~Backing() { back_large_arrays_by_files("", 0); }
};

}  // namespace

TEST_CASE("large arrays: without a directory every block is memory", "[model]") {
  LargeArray<std::int64_t> a(1 << 20, 7);
  CHECK_FALSE(is_file_backed(a.data()));
  CHECK(a[12345] == 7);
}

TEST_CASE("large arrays: blocks past the size are unlinked files that keep their values",
          "[model]") {
  const auto dir = empty_dir("files");
  const auto before = large_array_stats();
  {
    const Backing backing(dir, 1 << 20);
    LargeArray<std::int64_t> big(1 << 18);  // 2 MiB
    LargeArray<std::int64_t> small(1000);   // 8 KB
    REQUIRE(is_file_backed(big.data()));
    CHECK_FALSE(is_file_backed(small.data()));
    CHECK(large_array_stats().file_blocks == before.file_blocks + 1);
    CHECK(large_array_stats().file_bytes >= before.file_bytes + (2u << 20));
    CHECK(mappings_in(dir) == 1);
    CHECK(fs::is_empty(dir));  // nobody else sees the file, and it cannot be left behind
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::int64_t>(i * 3);
    // Growing moves the values to a new file; the old one goes.
    big.push_back(-1);
    REQUIRE(is_file_backed(big.data()));
    CHECK(mappings_in(dir) == 1);
    bool kept = true;
    for (std::size_t i = 0; i + 1 < big.size(); ++i)
      kept &= big[i] == static_cast<std::int64_t>(i * 3);
    CHECK(kept);
    CHECK(big.back() == -1);
    // Moving an array moves its block.
    LargeArray<std::int64_t> moved = std::move(big);
    CHECK(is_file_backed(moved.data()));
    CHECK(large_array_stats().file_blocks == before.file_blocks + 1);
  }
  CHECK(mappings_in(dir) == 0);
  CHECK(large_array_stats().file_blocks == before.file_blocks);
  CHECK(large_array_stats().file_bytes == before.file_bytes);
  CHECK(large_array_stats().file_blocks_ever >= before.file_blocks_ever + 2);
}

TEST_CASE("large arrays: a block made while backed stays a file after backing ends", "[model]") {
  const auto dir = empty_dir("after");
  LargeArray<std::int64_t> a;
  {
    const Backing backing(dir, 1 << 20);
    a.assign(1 << 18, 5);
  }
  CHECK(is_file_backed(a.data()));
  LargeArray<std::int64_t> b(1 << 18, 6);
  CHECK_FALSE(is_file_backed(b.data()));
  CHECK(a[1000] == 5);
  LargeArray<std::int64_t>().swap(a);
  CHECK(mappings_in(dir) == 0);
}

TEST_CASE("large arrays: where no file can be made, memory, counted with the reason", "[model]") {
  const fs::path missing = empty_dir("gone") / "no such directory";
  const auto before = large_array_stats();
  const Backing backing(missing, 1 << 20);
  LargeArray<std::int64_t> a(1 << 18, 9);
  CHECK_FALSE(is_file_backed(a.data()));
  CHECK(a[(1 << 18) - 1] == 9);
  const auto after = large_array_stats();
  CHECK(after.failures == before.failures + 1);
  CHECK_THAT(after.last_failure, Catch::Contains("no such directory"));
}

TEST_CASE("large arrays: a directory in memory (tmpfs) is no relief: memory, with the reason",
          "[model]") {
  struct statfs fs {};
  const char* shm = "/dev/shm";
  if (::statfs(shm, &fs) != 0 || fs.f_type != TMPFS_MAGIC) {
    WARN("no tmpfs at /dev/shm on this machine: nothing to check");
    return;
  }
  const auto before = large_array_stats();
  const Backing backing(shm, 1 << 20);
  LargeArray<std::int64_t> a(1 << 18, 4);
  CHECK_FALSE(is_file_backed(a.data()));
  CHECK(large_array_stats().failures == before.failures + 1);
  CHECK_THAT(large_array_stats().last_failure, Catch::Contains("tmpfs"));
  CHECK(mappings_in(shm) == 0);
}
