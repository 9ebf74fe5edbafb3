// A thread's stack of open regions: nesting, paths numbered once per process, time
// inside each, and ends that do not match what is open.
#include <catch2/catch.hpp>

#include "profiler/core/call_table.hpp"
#include "profiler/core/regions.hpp"

using namespace mpidle::profiler;

namespace {
Ticks wall_of(const RegionStack& s, std::uint16_t region, Ticks now) {
  std::vector<Ticks> wall;
  std::vector<std::uint64_t> visits;
  s.totals(now, wall, visits);
  return wall.at(region);
}
}  // namespace

TEST_CASE("regions nest into paths, and their time and entries add up", "[profiler]") {
  RegionRegistry registry;
  RegionStack s;
  CHECK(s.current() == 0);
  CHECK(s.begin(registry, "solve", 100));
  const auto solve = s.current();
  CHECK(s.begin(registry, "halo", 110));
  const auto halo = s.current();
  CHECK(halo != solve);
  bool unmatched = true;
  CHECK(s.end("halo", 150, unmatched));
  CHECK_FALSE(unmatched);
  CHECK(s.current() == solve);
  // Entered again: the same path, the same index.
  CHECK(s.begin(registry, "halo", 160));
  CHECK(s.current() == halo);
  CHECK(s.end("halo", 170, unmatched));
  CHECK(s.end("solve", 200, unmatched));
  CHECK(s.current() == 0);
  // "halo" outside solve is another path.
  CHECK(s.begin(registry, "halo", 300));
  CHECK(s.current() != halo);
  CHECK(s.end("halo", 301, unmatched));

  const auto paths = registry.paths();
  CHECK(paths.at(0) == "");
  CHECK(paths.at(solve) == "solve");
  CHECK(paths.at(halo) == "solve/halo");
  std::vector<Ticks> wall;
  std::vector<std::uint64_t> visits;
  s.totals(1000, wall, visits);
  CHECK(wall.at(solve) == 100);
  CHECK(wall.at(halo) == 40 + 10);
  CHECK(visits.at(solve) == 1);
  CHECK(visits.at(halo) == 2);
}

TEST_CASE("an open region counts up to now, and unmatched or unnamed ends change nothing",
          "[profiler]") {
  RegionRegistry registry;
  RegionStack s;
  s.begin(registry, "main", 10);
  const auto main_region = s.current();
  CHECK(wall_of(s, main_region, 110) == 100);
  bool unmatched = false;
  CHECK_FALSE(s.end("never_opened", 50, unmatched));
  CHECK(unmatched);
  CHECK(s.current() == main_region);
  CHECK_FALSE(s.begin(registry, nullptr, 60));
  CHECK_FALSE(s.begin(registry, "", 60));
  CHECK_FALSE(s.end(nullptr, 60, unmatched));
  CHECK(s.current() == main_region);
  // Closing an outer region closes what was left open inside it.
  s.begin(registry, "inner", 20);
  const auto inner = s.current();
  CHECK(s.end("main", 40, unmatched));
  CHECK(s.current() == 0);
  CHECK(wall_of(s, inner, 1000) == 20);
  CHECK(wall_of(s, main_region, 1000) == 30);
}

TEST_CASE("names are cut, '/' cannot fake nesting, and limits hold", "[profiler]") {
  CHECK(region_name("a/b") == "a_b");
  CHECK(region_name(std::string(200, 'x').c_str()).size() == kMaxRegionName);
  CHECK(region_name(nullptr).empty());

  RegionRegistry registry;
  RegionStack s;
  // Past the depth limit regions are only counted, so that their ends still pair up.
  for (int i = 0; i < RegionStack::kMaxDepth + 3; ++i) {
    s.begin(registry, ("d" + std::to_string(i)).c_str(), 1);
  }
  const auto deepest = s.current();
  bool unmatched = false;
  for (int i = RegionStack::kMaxDepth + 2; i >= RegionStack::kMaxDepth; --i) {
    s.end(("d" + std::to_string(i)).c_str(), 2, unmatched);
    CHECK(s.current() == deepest);
  }
  s.end("d0", 3, unmatched);
  CHECK(s.current() == 0);

  // A full registry: new regions count in their enclosing one.
  RegionRegistry full;
  RegionStack t;
  for (int i = 1; i < RegionRegistry::kCapacity; ++i) {
    const std::string name = "r" + std::to_string(i);
    REQUIRE(full.intern(0, name) == i);
  }
  CHECK(full.intern(0, "one_too_many") == RegionRegistry::kFull);
  t.begin(full, "r1", 0);
  const auto r1 = t.current();
  CHECK_FALSE(t.begin(full, "one_too_many", 5));
  CHECK(t.current() == r1);
  CHECK_FALSE(t.end("one_too_many", 6, unmatched));
  CHECK_FALSE(unmatched);
  CHECK(t.current() == r1);
}

TEST_CASE("the region is part of a call table key", "[profiler]") {
  static_assert(sizeof(CallKey) == 24, "the region lives in the key's padding");
  CallTable table(64);
  CallKey a{0x1000, 1, 0, -1};
  CallKey b = a;
  b.region = 3;
  REQUIRE(table.add(a, 10, 0));
  REQUIRE(table.add(b, 20, 0));
  CHECK(table.size() == 2);
}
