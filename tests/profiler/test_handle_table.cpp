#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "handle_table.hpp"

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

TEST_CASE("a full handle table forgets instead of failing", "[profiler]") {
  HandleTable t(8);  // 6 usable slots
  int stored = 0;
  for (std::uint64_t h = 1; h <= 10; ++h) stored += t.put(h, PendingOp{});
  CHECK(stored == 6);
}
