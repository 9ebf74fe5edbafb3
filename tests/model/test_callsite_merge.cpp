#include <catch2/catch.hpp>

#include "model/callsite_merge.hpp"
#include "model/profile_summary.hpp"

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
  auto s = model::summarize_all(t);
  // Wait against the minimum of all four (5 ms): 1.0 - 0.05 + 2.0 - 0.05 + 3.0 - 0.05.
  REQUIRE(model::merge_alike_callsites(s));
  REQUIRE(s.callsites.size() == 2);
  CHECK(s.callsites[0].merged_from.size() == 3);
  CHECK(s.callsites[0].merged_from[2][0].offset == 0x30);
  CHECK(s.callsites[1].merged_from.empty());
  REQUIRE(s.ranks[0].shares.size() == 2);
  const auto& share = s.ranks[0].shares[0];
  CHECK(share.visits == 30);
  CHECK(share.time_s == Approx(6.0));
  CHECK(share.wait_s == Approx(5.85));
  CHECK_FALSE(model::merge_alike_callsites(s));  // nothing left to merge
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
