#include <unistd.h>
#include <catch2/catch.hpp>
#include <cstdio>

#include <map>
#include <random>

#include "profiler/core/call_table.hpp"

using namespace mpidle::profiler;

TEST_CASE("call table keeps visits, total, minimum and bytes per key", "[profiler]") {
  CallTable t(64);
  const CallKey a{0x401000, 3, 4, 1};
  const CallKey b{0x401000, 3, 4, 2};  // same callsite, other peer
  REQUIRE(t.add(a, 50, 8));
  REQUIRE(t.add(a, 20, 8));
  REQUIRE(t.add(a, 30, 8));
  REQUIRE(t.add(b, 7, 0));
  std::map<std::int32_t, CallStats> seen;
  t.for_each([&](const CallKey& k, const CallStats& s) { seen[k.peer] = s; });
  REQUIRE(seen.size() == 2);
  CHECK(seen[1].visits == 3);
  CHECK(seen[1].total() == 100);
  CHECK(seen[1].minimum == 20);
  CHECK(seen[1].bytes == 24);
  CHECK(seen[2].minimum == 7);
}

TEST_CASE("a full call table refuses new keys but still counts known ones", "[profiler]") {
  CallTable t(16);  // 12 usable slots
  int accepted = 0;
  for (int i = 0; i < 20; ++i)
    accepted += t.add(CallKey{std::uintptr_t(0x1000 + i), 1, 0, -1}, 1, 0);
  CHECK(accepted == 12);
  CHECK(t.size() == 12);
  CHECK(t.add(CallKey{0x1000, 1, 0, -1}, 1, 0));
}

TEST_CASE("call table agrees with a map on random keys", "[profiler]") {
  CallTable t(4096);
  std::map<std::tuple<std::uintptr_t, int, int, int>, std::pair<std::uint64_t, Ticks>> expected;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    const CallKey k{0x400000 + (rng() % 50) * 16, std::uint16_t(rng() % 5), std::int16_t(rng() % 3),
                    std::int32_t(rng() % 4) - 1};
    const Ticks d = 1 + rng() % 1000;
    REQUIRE(t.add(k, d, 0));
    auto& e = expected[{k.callsite, k.function, k.size_class, k.peer}];
    e.first += 1;
    e.second += d;
  }
  std::size_t matched = 0;
  t.for_each([&](const CallKey& k, const CallStats& s) {
    const auto& e = expected.at({k.callsite, k.function, k.size_class, k.peer});
    CHECK(s.visits == e.first);
    CHECK(s.total() == e.second);
    ++matched;
  });
  CHECK(matched == expected.size());
}

TEST_CASE("call table bins durations by power of two with their exact sums", "[profiler]") {
  CHECK(duration_bin(0) == 0);
  CHECK(duration_bin(63) == 0);
  CHECK(duration_bin(64) == 1);
  CHECK(duration_bin(127) == 1);
  CHECK(duration_bin(128) == 2);
  CHECK(duration_bin(Ticks{1} << 32) == kDurationBins - 1);
  CHECK(duration_bin(~Ticks{0}) == kDurationBins - 1);
  CallTable t(64);
  const CallKey k{0x401000, 3, 4, 1};
  for (Ticks d : {10, 70, 100, 1000, 1000}) REQUIRE(t.add(k, d, 0));
  REQUIRE(t.add(k, kUntimed, 0));
  t.for_each([&](const CallKey&, const CallStats& s) {
    CHECK(s.visits == 6);
    CHECK(s.untimed == 1);
    CHECK(s.bins[0].count == 1);
    CHECK(s.bins[0].sum == 10);
    CHECK(s.bins[1].count == 2);
    CHECK(s.bins[1].sum == 170);
    CHECK(s.bins[4].count == 2);  // [512, 1024)
    CHECK(s.bins[4].sum == 2000);
    CHECK(s.total() == 2180);
  });
}

TEST_CASE("call table memory follows the keys used, not the capacity", "[profiler]") {
  CallTable t(1 << 16);
  const std::size_t empty = t.memory_bytes();
  for (int i = 0; i < 10; ++i)
    REQUIRE(t.add(CallKey{std::uintptr_t(0x1000 + 16 * i), 1, 0, -1}, 5, 0));
  CHECK(t.memory_bytes() > empty);
  CHECK(t.memory_bytes() <= empty + 20 * 4096);
  CHECK(t.memory_bytes() < t.capacity() * 100);
}

// Anonymous resident bytes of this process (/proc/self/statm: resident less shared).
static long anonymous_kib() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  unsigned long size = 0, resident = 0, shared = 0;
  const bool read = std::fscanf(f, "%lu %lu %lu", &size, &resident, &shared) == 3;
  std::fclose(f);
  return read ? static_cast<long>((resident - shared) * (sysconf(_SC_PAGESIZE) / 1024)) : -1;
}

TEST_CASE("visiting a call table's keys reads only the pages they landed on", "[profiler]") {
  // Megabytes of slots and one key: a visit that read every slot would make the
  // whole table resident where the kernel backs read faults with pages of their own,
  // as this VM's does (the finalize then grew by the table's size).
  CallTable t(std::size_t{1} << 18);
  REQUIRE(t.add(CallKey{0x401000, 1, 0, -1}, 5, 0));
  const long before = anonymous_kib();
  REQUIRE(before >= 0);
  int visited = 0;
  t.for_each([&](const CallKey& k, const CallStats& s) {
    CHECK(k.callsite == 0x401000);
    CHECK(s.visits == 1);
    ++visited;
  });
  CHECK(visited == 1);
  INFO("table of " << t.memory_bytes() << " bytes touched, capacity " << t.capacity());
  CHECK(anonymous_kib() - before < 1024);
}

TEST_CASE("an untimed poll takes its key's typical duration, not an interrupted one's",
          "[profiler]") {
  auto stats_of = [](const std::vector<Ticks>& durations) {
    CallTable t(64);
    for (const Ticks d : durations) t.add(CallKey{0x401000, 1, -1, -1}, d, 0);
    CallStats s;
    t.for_each([&](const CallKey&, const CallStats& found) { s = found; });
    return s;
  };
  // 15 polls of 100 ticks and one descheduled for 2,000,000: the untimed ones are
  // given 100, where the plain mean (125,094) would count the interruption again for
  // each of them.
  std::vector<Ticks> interrupted(15, 100);
  interrupted.push_back(2'000'000);
  const CallStats s = stats_of(interrupted);
  CHECK(typical_poll_duration(s.bins, s.total(), 16) == Approx(100));
  // Spread within a factor of 16 of the median: the plain mean.
  std::vector<Ticks> steady(8, 80);
  steady.insert(steady.end(), 8, 1200);
  const CallStats t = stats_of(steady);
  CHECK(typical_poll_duration(t.bins, t.total(), 16) == Approx(640));
  // Nothing timed: nothing to give.
  const CallStats none;
  CHECK(typical_poll_duration(none.bins, 0, 0) == 0);
}
