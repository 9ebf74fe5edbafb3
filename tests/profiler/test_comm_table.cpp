#include <catch2/catch.hpp>

#include <thread>

#include "comm_table.hpp"

using namespace mpidle::profiler;

TEST_CASE("communicator ranks translate to world ranks", "[profiler]") {
  CommTable t;
  CHECK(t.find(0x84000002) == nullptr);
  const CommInfo* info = t.insert(0x84000002, {5, 3, 1});
  REQUIRE(info != nullptr);
  CHECK(t.find(0x84000002) == info);
  CHECK(info->size() == 3);
  CHECK(info->world_rank(0) == 5);
  CHECK(info->world_rank(2) == 1);
  CHECK(info->world_rank(3) == -1);
  CHECK(info->world_rank(-2) == -1);  // MPI_ANY_SOURCE
}

TEST_CASE("a reused communicator handle gets the new translation", "[profiler]") {
  CommTable t;
  const CommInfo* old_info = t.insert(0x84000004, {0, 1});
  t.forget(0x84000004);
  CHECK(t.find(0x84000004) == nullptr);
  const CommInfo* fresh = t.insert(0x84000004, {1, 0});
  CHECK(t.find(0x84000004) == fresh);
  CHECK(fresh->world_rank(0) == 1);
  CHECK(old_info->world_rank(0) == 0);  // still readable by anyone who held it
}

TEST_CASE("lookups from many threads see complete entries", "[profiler]") {
  CommTable t;
  std::thread writer([&] {
    for (std::uint64_t h = 1; h <= 1000; ++h) t.insert(h, {static_cast<std::int32_t>(h), 0});
  });
  std::vector<std::thread> readers;
  std::atomic<int> bad{0};
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        for (std::uint64_t h = 1; h <= 1000; ++h) {
          if (const CommInfo* info = t.find(h); info && info->world_rank(0) != std::int32_t(h))
            ++bad;
        }
      }
    });
  }
  writer.join();
  for (auto& r : readers) r.join();
  CHECK(bad == 0);
  for (std::uint64_t h = 1; h <= 1000; ++h) REQUIRE(t.find(h) != nullptr);
}
