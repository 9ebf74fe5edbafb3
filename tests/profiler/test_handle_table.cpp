#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "profiler/core/handle_table.hpp"

using namespace mpidle::profiler;

TEST_CASE("pending operations are found until erased", "[profiler]") {
  HandleTable t(16);
  PendingOp op;
  op.peer = 3;
  op.bytes = 64;
  op.receive = true;
  REQUIRE(t.put(0x2c000001, op));
  auto found = t.find(0x2c000001);
  REQUIRE(found);
  CHECK(found->peer == 3);
  CHECK(found->bytes == 64);
  CHECK_FALSE(t.find(0x2c000002));
  t.erase(0x2c000001);
  CHECK_FALSE(t.find(0x2c000001));
  CHECK(t.size() == 0);
}

TEST_CASE("a completed entry is forgotten once, and its handle started again reuses its slot",
          "[profiler]") {
  HandleTable t(64);
  PendingOp send;
  send.bytes = 8;
  REQUIRE(t.put(0x2c000001, send));
  // Two requests that share one handle (MPICH's completed sends) both read the entry;
  // only the first completion forgets it.
  const auto first = t.locate(0x2c000001);
  const auto second = t.locate(0x2c000001);
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first.op().bytes == 8);
  CHECK(t.complete(first));
  CHECK_FALSE(t.complete(second));
  CHECK_FALSE(t.locate(0x2c000001));
  CHECK_FALSE(t.find(0x2c000001));
  CHECK(t.size() == 0);
  // Started again: the same handle is claimed and found; nothing else is lost.
  const auto claim = t.claim(0x2c000001);
  REQUIRE(claim);
  claim.op() = PendingOp{};
  claim.op().bytes = 16;
  claim.publish();
  REQUIRE(t.find(0x2c000001));
  CHECK(t.find(0x2c000001)->bytes == 16);
  CHECK(t.size() == 1);
  // Handles that are not top-bit free (never an MPI handle) are not tracked.
  CHECK_FALSE(t.claim(std::uint64_t{1} << 63 | 5));
}

TEST_CASE("done slots are taken by other handles, and a long run of reused handles stays found",
          "[profiler]") {
  HandleTable t(64);
  std::mt19937 rng(7);
  std::map<std::uint64_t, std::uint64_t> live;
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t h = 0x2c000000 + rng() % 200;
    if (live.count(h)) {
      const auto e = t.locate(h);
      REQUIRE(e);
      CHECK(e.op().bytes == live[h]);
      CHECK(t.complete(e));
      live.erase(h);
    } else if (live.size() < 40) {
      PendingOp op;
      op.bytes = static_cast<std::uint64_t>(step);
      if (t.put(h, op)) live[h] = op.bytes;
    }
  }
  CHECK(t.size() == live.size());
  for (const auto& [h, bytes] : live) {
    const auto found = t.find(h);
    REQUIRE(found);
    CHECK(found->bytes == bytes);
  }
}

TEST_CASE("a completed request is taken in one step, a persistent one stays", "[profiler]") {
  HandleTable t(16);
  PendingOp once, persistent;
  once.peer = 1;
  persistent.peer = 2;
  persistent.persistent = true;
  REQUIRE(t.put(0x2c000001, once));
  REQUIRE(t.put(0x2c000002, persistent));
  const auto taken = t.locate(0x2c000001);
  REQUIRE(taken);
  CHECK(taken.op().peer == 1);
  CHECK(t.complete(taken));
  CHECK_FALSE(t.find(0x2c000001));
  const auto kept = t.locate(0x2c000002);
  REQUIRE(kept);
  CHECK(kept.op().peer == 2);
  CHECK_FALSE(t.complete(kept));
  CHECK(t.find(0x2c000002));  // forgotten at MPI_Request_free, not at completion
  CHECK(t.size() == 1);
  CHECK_FALSE(t.locate(0x2c000003));
}

TEST_CASE("erasing keeps every other entry reachable (random churn)", "[profiler]") {
  HandleTable t(256);
  std::map<std::uint64_t, std::int32_t> live;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 50000; ++i) {
    const std::uint64_t h = 0xac000000 + rng() % 300;
    if (rng() % 2 && live.size() < 150) {
      PendingOp op;
      op.peer = static_cast<std::int32_t>(h % 97);
      REQUIRE(t.put(h, op));
      live[h] = op.peer;
    } else {
      t.erase(h);
      live.erase(h);
    }
  }
  CHECK(t.size() == live.size());
  for (const auto& [h, peer] : live) {
    const auto f = t.find(h);
    REQUIRE(f);
    CHECK(f->peer == peer);
  }
}

TEST_CASE("a full handle table forgets instead of failing, and counts it", "[profiler]") {
  HandleTable t(HandleTable::kMaxProbe);
  int stored = 0;
  for (std::uint64_t h = 1; h <= 100; ++h) stored += t.put(0xac000000 + h, PendingOp{});
  CHECK(stored == static_cast<int>(HandleTable::kMaxProbe));
  CHECK(t.dropped() == 100 - HandleTable::kMaxProbe);
  CHECK(t.size() == HandleTable::kMaxProbe);
}

TEST_CASE("a reused handle replaces its stale entry instead of matching it", "[profiler]") {
  HandleTable t(1024);
  PendingOp old_op;
  old_op.peer = 1;
  REQUIRE(t.put(0xac000001, old_op));
  // Churn so that tombstones lie before the stale entry's slot.
  for (std::uint64_t h = 2; h < 200; ++h) {
    t.put(0xac000000 + h, PendingOp{});
    t.erase(0xac000000 + h);
  }
  PendingOp new_op;
  new_op.peer = 2;
  REQUIRE(t.put(0xac000001, new_op));
  CHECK(t.size() == 1);
  CHECK(t.take(0xac000001)->peer == 2);
  CHECK_FALSE(t.find(0xac000001));
}

TEST_CASE("requests started on one thread complete on another", "[profiler]") {
  HandleTable t(1 << 14);
  constexpr int kThreads = 4, kPerThread = 2000;  // 8,000 live: half the table
  std::atomic<int> found{0};
  std::vector<std::thread> threads;
  // Thread k starts requests with handles of its own and completes those that
  // thread (k + 1) mod 4 started, once that thread says they are all in.
  std::array<std::atomic<bool>, kThreads> started{};
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      for (int i = 0; i < kPerThread; ++i) {
        PendingOp op;
        op.peer = k;
        op.serial = static_cast<std::uint32_t>(i);
        t.put(0x1000000ull * (k + 1) + static_cast<std::uint64_t>(i) * 8, op);
        if (i % 64 == 63) std::this_thread::yield();
      }
      started[k] = true;
      const int other = (k + 1) % kThreads;
      while (!started[other]) std::this_thread::yield();
      for (int i = 0; i < kPerThread; ++i) {
        auto op = t.take(0x1000000ull * (other + 1) + static_cast<std::uint64_t>(i) * 8);
        if (op && op->peer == other && op->serial == static_cast<std::uint32_t>(i)) ++found;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(found + static_cast<int>(t.dropped()) == kThreads * kPerThread);
  CHECK(t.dropped() == 0);
  CHECK(t.size() == 0);
}
