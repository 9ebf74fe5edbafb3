// Code regions: each rank's calls and time inside, inclusive of nested regions,
// added up over ranks whose tables number the regions differently; POP's metrics
// per region from hand-computed useful times.
#include <catch2/catch.hpp>

#include "model/profile_reader.hpp"
#include "model/profile_writer.hpp"
#include "model/region_totals.hpp"
#include "model/summary_codec.hpp"
#include "model/table_merge.hpp"

using namespace mpidle;

namespace {

// Callsites: 0 an MPI_Recv inside solve/halo, 1 an MPI_Barrier inside solve, 2 an
// MPI_Barrier outside every region. `regions` lists the paths in this rank's order.
model::ProfileTables rank_tables(std::int32_t rank, const std::vector<std::string>& regions,
                                 double halo_recv_s, double solve_barrier_s,
                                 std::map<std::string, double> wall,
                                 std::map<std::string, std::uint64_t> visits) {
  model::ProfileTables t;
  t.functions = {"MPI_Recv", "MPI_Barrier"};
  for (std::uint64_t site = 0; site < 3; ++site) {
    t.callsites.push_back(
        model::Callsite{{model::Frame{"/bin/app", 0x1000 * (site + 1), "", "", 0}}, {}});
  }
  t.regions = regions;
  auto index = [&](const std::string& path) {
    return static_cast<std::uint32_t>(std::find(regions.begin(), regions.end(), path) -
                                      regions.begin());
  };
  model::RankData r;
  r.rank = rank;
  r.host = "node";
  r.wall_s = 1.0;
  model::Entry recv{0, 0, 4, 1 - rank, 5, halo_recv_s, halo_recv_s / 50, 40};
  recv.region = index("solve/halo");
  model::Entry barrier{1, 1, 0, -1, 10, solve_barrier_s, solve_barrier_s / 20, 0};
  barrier.region = index("solve");
  model::Entry outside{2, 1, 0, -1, 1, 0.02, 0.02, 0};
  r.entries = {recv, barrier, outside};
  r.region_wall_s.assign(regions.size(), 0.0);
  r.region_visits.assign(regions.size(), 0);
  for (const auto& [path, s] : wall) r.region_wall_s[index(path)] = s;
  for (const auto& [path, n] : visits) r.region_visits[index(path)] = n;
  t.ranks.push_back(std::move(r));
  return t;
}

model::ProfileTables two_ranks() {
  auto t = rank_tables(0, {"", "solve", "solve/halo", "io"}, 0.05, 0.10,
                       {{"solve", 0.6}, {"solve/halo", 0.2}, {"io", 0.1}},
                       {{"solve", 10}, {"solve/halo", 10}, {"io", 1}});
  // Rank 1 met the regions in another order and never entered io.
  model::merge_tables(
      t, rank_tables(1, {"", "solve/halo", "solve"}, 0.10, 0.05,
                     {{"solve", 0.5}, {"solve/halo", 0.3}}, {{"solve", 10}, {"solve/halo", 10}}));
  return t;
}

const model::RegionTotals& region(const model::ProfileSummary& s, const std::string& path) {
  for (const auto& r : s.regions) {
    if (r.path == path) return r;
  }
  FAIL("no region " << path);
  throw;
}

}  // namespace

TEST_CASE("region paths: parents and depth", "[model]") {
  CHECK(model::parent_region("solve/halo/pack") == "solve/halo");
  CHECK(model::parent_region("solve") == "");
  CHECK(model::region_depth("solve/halo/pack") == 3);
  CHECK(model::region_depth("io") == 1);
  CHECK(model::region_depth("") == 0);
}

TEST_CASE("regions add up inclusively over ranks, and their POP metrics", "[model]") {
  const auto s = model::summarize_all(two_ranks());
  REQUIRE(s.regions.size() == 3);
  CHECK(s.regions[0].path == "io");  // sorted by path: parents before children
  CHECK(s.regions[1].path == "solve");
  CHECK(s.regions[2].path == "solve/halo");

  // solve holds its own barrier and the nested halo's receive.
  const auto& solve = region(s, "solve");
  CHECK(solve.ranks == 2);
  CHECK(solve.visits == 20);
  CHECK(solve.calls == 2 * (5 + 10));
  CHECK(solve.mpi_s == Approx(0.30));
  CHECK(solve.wall_max_s == Approx(0.6));
  CHECK(solve.useful_sum_s == Approx(0.45 + 0.35));
  CHECK(solve.useful_max_s == Approx(0.45));
  const auto e = model::region_efficiency(solve, 2);
  CHECK(e.load_balance == Approx(0.4 / 0.45));
  CHECK(e.communication == Approx(0.45 / 0.6));
  CHECK(e.parallel == Approx(0.4 / 0.6));

  const auto& halo = region(s, "solve/halo");
  CHECK(halo.mpi_s == Approx(0.15));
  CHECK(halo.useful_max_s == Approx(0.2));
  CHECK(model::region_efficiency(halo, 2).load_balance == Approx(0.175 / 0.2));

  // Wait: the nested region's is part of its parent's, and the call outside every
  // region is in none.
  double solve_wait = 0, halo_wait = 0;
  for (const auto& rank : s.ranks) {
    for (const auto& share : rank.shares) {
      if (share.callsite != 2) solve_wait += share.wait_s;
      if (share.callsite == 0) halo_wait += share.wait_s;
    }
  }
  CHECK(solve.wait_s == Approx(solve_wait));
  CHECK(halo.wait_s == Approx(halo_wait));
  CHECK(solve.wait_s_minimum > 0);

  // io: only rank 0 worked there, so the mean over the run's two ranks is half.
  const auto& io = region(s, "io");
  CHECK(io.ranks == 1);
  CHECK(io.calls == 0);
  const auto io_e = model::region_efficiency(io, 2);
  CHECK(io_e.load_balance == Approx(0.5));
  CHECK(io_e.communication == Approx(1.0));
}

TEST_CASE("a run without regions has none, and regions survive the tree's codec", "[model]") {
  auto plain = two_ranks();
  plain.regions.clear();
  for (auto& r : plain.ranks) {
    r.region_wall_s.clear();
    r.region_visits.clear();
    for (auto& e : r.entries) e.region = 0;
  }
  CHECK(model::summarize_all(plain).regions.empty());

  const auto s = model::summarize_all(two_ranks());
  const auto back = model::decode_summary(model::encode_summary(s));
  REQUIRE(back);
  REQUIRE(back->regions.size() == s.regions.size());
  for (std::size_t i = 0; i < s.regions.size(); ++i) {
    CHECK(back->regions[i].path == s.regions[i].path);
    CHECK(back->regions[i].mpi_s == s.regions[i].mpi_s);
    CHECK(back->regions[i].useful_max_s == s.regions[i].useful_max_s);
    CHECK(back->regions[i].wait_s == s.regions[i].wait_s);
  }
}

TEST_CASE("regions survive profile.json, and a bad region row is refused", "[model]") {
  model::RunInfo run;
  run.executable = "/bin/app";
  run.wall_s = 1.0;
  auto doc = model::build_profile(two_ranks(), run).profile;
  const auto p = model::parse_profile(doc);
  REQUIRE(p.regions.size() == 3);
  const auto& solve = p.regions[1];
  CHECK(solve.path == "solve");
  CHECK(solve.depth == 1);
  CHECK(p.regions[2].depth == 2);
  CHECK(solve.mpi_s == Approx(0.30));
  CHECK(solve.efficiency.load_balance == Approx(0.4 / 0.45));
  CHECK(solve.efficiency.parallel == Approx(0.4 / 0.6));
  CHECK(doc["regions"][2]["parent"] == "solve");

  doc["regions"][1]["efficiency"]["load_balance"] = 1.5;
  CHECK_THROWS_WITH(model::parse_profile(doc),
                    Catch::Contains("regions[1].efficiency.load_balance is not within 0..1"));
  doc = model::build_profile(two_ranks(), run).profile;
  doc["regions"][0]["path"] = "";
  CHECK_THROWS_WITH(model::parse_profile(doc), Catch::Contains("regions[0].path is empty"));
  doc = model::build_profile(two_ranks(), run).profile;
  doc["regions"][0].erase("mpi_s");
  CHECK_THROWS_WITH(model::parse_profile(doc), Catch::Contains("regions[0] has no \"mpi_s\""));
}
