// Code regions against what the program observes: each region's POP metrics, from
// both conventions of MPI_Pcontrol, mpidle.h and Fortran; and a program that marks
// regions runs the same without mpidle.
#include <catch2/catch.hpp>

#include <cmath>

#include "model/profile_reader.hpp"
#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {
const model::RegionRow* region(const model::Profile& p, const std::string& path) {
  for (const auto& r : p.regions) {
    if (r.path == path) return &r;
  }
  return nullptr;
}
}  // namespace

TEST_CASE("each region's POP metrics are what the program observed", "[mpi]") {
  // "solve" (mpidle.h) holds "balanced" (mpidle.h) and "skewed" (IPM's
  // MPI_Pcontrol(1/-1, name)): load balance 1 and 0.75 on 2 ranks.
  const auto dir = scratch_dir("regions_balance");
  const auto r = run_mpi(2, program("region_work"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_PCONTROL", "regions"}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const auto p = model::read_profile(dir);
  REQUIRE(p.regions.size() == 3);
  // A rank descheduled between the program's clock read and mpidle's, next to its
  // MPI call, counts that time on the other side of the line. Where the program saw
  // such interference (its balanced region far from efficient), the agreement is
  // looser: 0.06 against 0.03 (one such run: communication 0.629 against 0.595).
  const bool disturbed = truth["solve/balanced"]["parallel"].get<double>() < 0.9;
  const double tolerance = disturbed ? 0.06 : 0.03;
  for (const char* path : {"solve", "solve/balanced", "solve/skewed"}) {
    const auto* row = region(p, path);
    REQUIRE(row != nullptr);
    const auto& observed = truth[path];
    INFO(path << ": observed " << observed.dump() << "; mpidle LB " << row->efficiency.load_balance
              << ", comm " << row->efficiency.communication << ", parallel "
              << row->efficiency.parallel);
    CHECK(std::abs(row->efficiency.load_balance - observed["load_balance"].get<double>()) <=
          tolerance);
    CHECK(std::abs(row->efficiency.communication - observed["communication"].get<double>()) <=
          tolerance);
    CHECK(std::abs(row->efficiency.parallel - observed["parallel"].get<double>()) <= tolerance);
    CHECK(row->ranks == 2);
    CHECK(row->visits == 2 * 24);
  }
  // The two regions differ as the program made them differ (1 against 0.75). A
  // loaded machine can take a tenth off the balanced one or add it to the skewed
  // one, and the program's own observation above shows it: the gap is required
  // where the program saw it.
  const double observed_gap = truth["solve/balanced"]["load_balance"].get<double>() -
                              truth["solve/skewed"]["load_balance"].get<double>();
  INFO("observed load-balance gap " << observed_gap);
  if (observed_gap > 0.2) {
    CHECK(region(p, "solve/skewed")->efficiency.load_balance < 0.85);
    CHECK(region(p, "solve/balanced")->efficiency.load_balance -
              region(p, "solve/skewed")->efficiency.load_balance >
          0.15);
  }
  // Inclusive: solve holds both children's calls, the waiting in skewed's Allreduce.
  CHECK(region(p, "solve")->calls == 2 * 2 * 24);
  CHECK(region(p, "solve/skewed")->calls == 2 * 24);
  CHECK(
      region(p, "solve")->mpi_s ==
      Approx(region(p, "solve/balanced")->mpi_s + region(p, "solve/skewed")->mpi_s).epsilon(1e-9));
  // Where the program observed its balanced region balanced (its own clock, parallel
  // efficiency within 1% of 1), mpidle's wait there is a tenth of skewed's at most.
  // A rank descheduled on a loaded machine makes the other really wait in balanced's
  // Allreduce: that run's own observation shows it, and the efficiencies above
  // still hold it to the truth.
  const double balanced_observed = truth["solve/balanced"]["parallel"].get<double>();
  INFO("balanced: observed parallel efficiency "
       << balanced_observed << ", wait " << region(p, "solve/balanced")->wait_s
       << " s; skewed wait " << region(p, "solve/skewed")->wait_s << " s");
  if (balanced_observed >= 0.99) {
    CHECK(region(p, "solve/skewed")->wait_s > 10 * region(p, "solve/balanced")->wait_s);
  }
  CHECK(region(p, "solve")->depth == 1);
  CHECK(region(p, "solve/skewed")->depth == 2);

  const auto text = run({build_tree::mpidle_bin, "report", dir});
  CHECK_THAT(text.out, Catch::Contains("Regions") && Catch::Contains("    skewed"));
  const auto html = run({build_tree::mpidle_bin, "report", dir, "--html", dir + "/report.html"});
  REQUIRE(html.status == 0);
  CHECK_THAT(read_text(dir + "/report.html"), Catch::Contains("data-region=\"solve/skewed\""));
}

TEST_CASE("untimed polls from one callsite count in the region they were made in", "[mpi]") {
  // Most polls go untimed, and a polling loop's key is kept between calls: a region
  // boundary must end it. Two sampling settings, without trace windows (inside one
  // every poll is timed: this short program would run inside the first).
  for (const std::string sample : {"16", "1000"}) {
    const auto dir = scratch_dir("regions_polls_" + sample);
    const auto r = run_mpi(
        2, program("region_polls"), {"--json"},
        {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_POLL_SAMPLE", sample}, {"MPIDLE_WINDOW_MS", "0"}});
    INFO("MPIDLE_POLL_SAMPLE=" << sample << "\n" << r.err);
    REQUIRE(r.status == 0);
    const auto truth = truth_of(r.out);
    const auto p = model::read_profile(dir);
    REQUIRE(region(p, "a") != nullptr);
    REQUIRE(region(p, "b") != nullptr);
    CHECK(region(p, "a")->calls == 2 * truth["a"].get<std::uint64_t>());
    CHECK(region(p, "b")->calls == 2 * truth["b"].get<std::uint64_t>());
    std::uint64_t untimed = 0;
    for (const auto& rank : p.ranks) untimed += rank.untimed_calls;
    CHECK(untimed > (truth["a"].get<std::uint64_t>() + truth["b"].get<std::uint64_t>()));
  }
}

TEST_CASE(
    "mpiP's MPI_Pcontrol stays the default: no name is read, and without mpidle the "
    "program runs the same",
    "[mpi]") {
  const auto dir = scratch_dir("regions_default");
  const auto r = run_mpi(2, program("region_work"), {}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto p = model::read_profile(dir);
  // MPI_Pcontrol(1, "skewed") and (-1, ...) resume profiling: every call is counted.
  CHECK(region(p, "solve/skewed") == nullptr);
  REQUIRE(region(p, "solve") != nullptr);
  REQUIRE(region(p, "solve/balanced") != nullptr);
  CHECK(region(p, "solve")->calls == 2 * 2 * 24);
  CHECK(calls_of(p, "MPI_Allreduce") == 2 * 2 * 24);

  const auto bare = run_mpi(2, program("region_work"), {"--json"}, {}, false);
  CHECK(bare.status == 0);
  CHECK(truth_of(bare.out).contains("solve/skewed"));
}

TEST_CASE("regions from Fortran, whose MPI_Pcontrol has no name to read", "[mpi]") {
  if (!build_tree::have_fortran) {
    skip_test("no Fortran MPI compiler was found at configure time");
  }
  const auto dir = scratch_dir("regions_fortran");
  const auto r = run_mpi(2, program("fortran_regions"), {},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_PCONTROL", "regions"}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto p = model::read_profile(dir);
  REQUIRE(p.regions.size() == 1);
  CHECK(p.regions[0].path == "exchange");
  CHECK(p.regions[0].calls == 2 * 6);
  CHECK(p.regions[0].visits == 2);
  const auto bare = run_mpi(2, program("fortran_regions"), {}, {}, false);
  CHECK(bare.status == 0);
  CHECK(truth_of(bare.out)["allreduces"] == 6);
}
