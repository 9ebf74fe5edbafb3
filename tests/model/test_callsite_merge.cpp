#include <catch2/catch.hpp>

#include "model/callsite_merge.hpp"

using namespace mpidle;

namespace {
model::Callsite site(std::uint64_t offset, const std::string& file, int line) {
  return model::Callsite{{model::Frame{"/bin/app", offset, "main", file, line}}, {}};
}
}  // namespace

TEST_CASE("callsites on one source line are one callsite, raw addresses kept", "[model]") {
  model::ProfileTables t;
  t.functions = {"MPI_Barrier"};
  // An unrolled loop: three return addresses on line 12, and one unsymbolized.
  t.callsites = {site(0x10, "a.c", 12), site(0x20, "a.c", 12), site(0x30, "a.c", 12),
                 site(0x40, "", 0)};
  model::RankData r;
  r.entries.push_back(model::Entry{0, 0, 0, -1, 10, 1.0, 0.01, 0, 2});
  r.entries.push_back(model::Entry{1, 0, 0, -1, 10, 2.0, 0.02, 0, 2});
  r.entries.push_back(model::Entry{2, 0, 0, -1, 10, 3.0, 0.005, 0, 2});
  r.entries.push_back(model::Entry{3, 0, 0, -1, 1, 1.0, 1.0, 0, 2});
  t.ranks.push_back(r);
  REQUIRE(model::merge_alike_callsites(t));
  REQUIRE(t.callsites.size() == 2);
  CHECK(t.callsites[0].merged_from.size() == 3);
  CHECK(t.callsites[0].merged_from[2][0].offset == 0x30);
  CHECK(t.callsites[1].merged_from.empty());
  REQUIRE(t.ranks[0].entries.size() == 2);
  const auto& e = t.ranks[0].entries[0];
  CHECK(e.visits == 30);
  CHECK(e.time_s == Approx(6.0));
  CHECK(e.min_s == 0.005);
  CHECK_FALSE(model::merge_alike_callsites(t));  // nothing left to merge
}

TEST_CASE("a trace's records follow their merged callsites", "[model]") {
  model::Trace t;
  t.callsites = {site(0x10, "a.c", 3), site(0x20, "b.c", 3), site(0x30, "a.c", 3)};
  t.ranks.resize(1);
  for (std::uint64_t c : {0, 1, 2}) {
    model::TraceRecord rec;
    rec.callsite = c;
    t.ranks[0].records.push_back(rec);
  }
  REQUIRE(model::merge_alike_callsites(t));
  CHECK(t.callsites.size() == 2);
  CHECK(t.ranks[0].records[0].callsite == 0);
  CHECK(t.ranks[0].records[1].callsite == 1);
  CHECK(t.ranks[0].records[2].callsite == 0);
}
