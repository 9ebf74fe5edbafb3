#include <catch2/catch.hpp>

#include <thread>

#include "profiler/core/comm_table.hpp"

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
  old_info->hold();  // a pending wildcard receive on the freed communicator
  t.forget(0x84000004);
  CHECK(t.find(0x84000004) == nullptr);
  const CommInfo* fresh = t.insert(0x84000004, {1, 0});
  CHECK(t.find(0x84000004) == fresh);
  CHECK(fresh->world_rank(0) == 1);
  CHECK(old_info->world_rank(0) == 0);  // still readable by the receive that holds it
  CHECK(t.retired() == 1);
  old_info->release();
  t.forget(0x84000999);  // any later free sweeps what nothing holds
  CHECK(t.retired() == 0);
}

TEST_CASE("10,000 communicators created and freed one after another fit in the table",
          "[profiler]") {
  CommTable t;
  // Distinct handles, as an MPI whose handles are addresses may give.
  for (std::uint64_t n = 0; n < 10000; ++n) {
    const std::uint64_t handle = 0x7f0000001000 + 64 * n;
    const CommInfo* info = t.insert(handle, {0, 1});
    REQUIRE(info != nullptr);
    REQUIRE(t.find(handle) == info);
    t.forget(handle);
    REQUIRE(t.find(handle) == nullptr);
  }
  CHECK(t.retired() == 0);
  // Live communicators keep their entries while freed ones make room.
  const CommInfo* world = t.insert(1, {0, 1, 2});
  for (std::uint64_t h = 2; h <= CommTable::kCapacity; ++h) REQUIRE(t.insert(h, {0}) != nullptr);
  CHECK(t.insert(0x9999, {0}) == nullptr);  // every slot live
  t.forget(2);
  CHECK(t.insert(0x9999, {0}) != nullptr);
  CHECK(t.find(1) == world);
}

TEST_CASE("a second build of a live entry returns the first one", "[profiler]") {
  CommTable t;
  const CommInfo* first = t.insert(7, {0, 1});
  CHECK(t.insert(7, {0, 1}) == first);
  CHECK(t.retired() == 0);
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
