// compare_profiles on hand-built profiles: matching by source location, ratios,
// what dominates each callsite, and mismatches said plainly.
#include <catch2/catch.hpp>

#include "report/text/compare.hpp"

using namespace mpidle;
using namespace mpidle::report;

namespace {

model::CallsiteRow site(const std::string& fn, int line, std::uint64_t offset, double time,
                        double wait, double bytes, std::uint64_t visits = 100) {
  model::CallsiteRow c;
  c.function = fn;
  c.frames.push_back({"/bin/app", offset, "main", "app.c", line});
  c.visits = visits;
  c.time_s = time;
  c.wait_s = wait;
  c.wait_s_global_min = wait;
  c.estimates.wait_s_robust = c.estimates.wait_s_minimum = wait;
  c.bytes = bytes;
  return c;
}

model::Profile profile(std::int64_t ranks, std::vector<model::CallsiteRow> sites) {
  model::Profile p;
  p.run.executable = "/bin/app";
  p.run.ranks = ranks;
  p.run.mpi_library = "MPICH";
  for (std::int64_t r = 0; r < ranks; ++r) {
    model::RankRow row;
    row.rank = r;
    row.wall_s = 10;
    row.mpi_s = 2;
    row.wait_s = 1;
    row.estimates.wait_s_robust = row.estimates.wait_s_minimum = 1;
    p.ranks.push_back(row);
  }
  p.callsites = std::move(sites);
  return p;
}

const SiteComparison* find(const Comparison& c, const std::string& fn) {
  for (const auto& s : c.callsites) {
    if (s.function == fn) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("callsites match by source location, not address, and the largest change is flagged") {
  // B is another build: every callsite moved, and Alltoall got 3 times slower.
  const auto a = profile(4, {site("MPI_Alltoall", 10, 0x100, 1.0, 0.1, 100 * 1e6),
                             site("MPI_Allreduce", 20, 0x200, 0.5, 0.4, 100 * 8),
                             site("MPI_Send", 30, 0x300, 0.2, 0.0, 100 * 64)});
  const auto b = profile(4, {site("MPI_Alltoall", 10, 0x180, 3.0, 0.2, 100 * 1e6),
                             site("MPI_Allreduce", 20, 0x280, 0.5, 0.4, 100 * 8),
                             site("MPI_Send", 30, 0x380, 0.3, 0.0, 100 * 64)});
  const auto c = compare_profiles(a, b, Estimate::local);
  CHECK(c.caveats.empty());
  REQUIRE(c.callsites.size() == 3);
  const auto* alltoall = find(c, "MPI_Alltoall");
  REQUIRE(alltoall);
  CHECK(alltoall->changed_most);
  CHECK(alltoall->time.ratio() == Approx(3.0));
  CHECK(alltoall->processing.ratio() == Approx(2.8 / 0.9));
  CHECK(alltoall->dominant == Dominant::bandwidth);  // 1 MB per visit
  CHECK(find(c, "MPI_Allreduce")->dominant == Dominant::waiting);
  CHECK(find(c, "MPI_Send")->dominant == Dominant::latency);  // 64 B per visit
  CHECK_FALSE(find(c, "MPI_Send")->changed_most);
  const std::string text = format_comparison(c, 10);
  CHECK(text.find(">> changed most: MPI_Alltoall at app.c:10 (main), time x3.00") !=
        std::string::npos);
  CHECK(text.find("bandwidth (large messages)") != std::string::npos);
}

TEST_CASE("mismatched programs and rank counts are said plainly") {
  auto a = profile(4, {site("MPI_Send", 30, 0x300, 0.2, 0.0, 6400)});
  auto b = profile(8, {site("MPI_Recv", 40, 0x400, 0.2, 0.1, 6400)});
  b.run.executable = "/bin/other";
  const auto c = compare_profiles(a, b, Estimate::local);
  const std::string text = format_comparison(c, 10);
  CHECK(text.find("different programs: A runs app, B runs other") != std::string::npos);
  CHECK(text.find("different rank counts: A has 4 ranks, B has 8") != std::string::npos);
  CHECK(text.find("1 callsites only in A and 1 only in B") != std::string::npos);
  CHECK(text.find("(only in B)") != std::string::npos);
}

TEST_CASE("compare prints POP's efficiency table with computation scalability, A the reference") {
  // A: 2 ranks, 10 s each, 2 s in MPI (useful 8 + 8). B: 4 ranks, 6 s each: rank 0
  // 5 s useful, the others 4 s (useful 17 s: computation scalability 16/17).
  auto a = profile(2, {site("MPI_Allreduce", 20, 0x200, 1.0, 0.5, 800)});
  auto b = profile(4, {site("MPI_Allreduce", 20, 0x200, 1.0, 0.5, 800)});
  for (auto& r : b.ranks) {
    r.wall_s = 6;
    r.mpi_s = r.rank == 0 ? 1 : 2;
  }
  auto fill = [](model::Profile& p) {
    std::vector<double> useful, wall;
    for (const auto& r : p.ranks) {
      useful.push_back(r.wall_s - r.mpi_s);
      wall.push_back(r.wall_s);
    }
    p.efficiency = model::pop_efficiency(useful, wall);
  };
  fill(a);
  fill(b);
  const auto c = compare_profiles(a, b, Estimate::robust);
  CHECK(c.pop_a.computation_scalability == 1);
  CHECK(c.pop_b.computation_scalability == Approx(16.0 / 17.0));
  CHECK(c.pop_a.efficiency.parallel == Approx(0.8));
  CHECK(c.pop_b.efficiency.load_balance == Approx(4.25 / 5));
  CHECK(c.pop_b.efficiency.communication == Approx(5.0 / 6));
  CHECK(c.pop_b.global() == Approx(4.25 / 6 * 16.0 / 17.0));
  const auto text = format_comparison(c, 10);
  CHECK_THAT(text, Catch::Contains("POP efficiency (A: reference)"));
  CHECK_THAT(text, Catch::Contains("computation scalability"));
  CHECK_THAT(text, Catch::Contains("0.67"));  // B's global efficiency
}

TEST_CASE(
    "where PAPI counted, computation scalability splits into instruction and IPC "
    "scalability, and where it did not, the table says why") {
  auto a = profile(2, {site("MPI_Allreduce", 20, 0x200, 1.0, 0.5, 800)});
  auto b = profile(4, {site("MPI_Allreduce", 20, 0x200, 1.0, 0.5, 800)});
  auto counted = [](model::Profile& p, std::int64_t instructions, std::int64_t cycles) {
    model::TraceSection t;
    t.papi_events = {"PAPI_TOT_CYC", "PAPI_TOT_INS"};
    t.papi_available = true;
    for (std::size_t r = 0; r < p.ranks.size(); ++r) {
      t.papi_burst_totals.push_back({cycles / static_cast<std::int64_t>(p.ranks.size()),
                                     instructions / static_cast<std::int64_t>(p.ranks.size())});
    }
    p.trace = t;
  };
  // A: 8e9 instructions in 4e9 cycles (IPC 2); B: 10e9 in 6e9 (IPC 5/3).
  counted(a, 8'000'000'000, 4'000'000'000);
  counted(b, 10'000'000'000, 6'000'000'000);
  auto c = compare_profiles(a, b, Estimate::robust);
  REQUIRE(c.pop_b.instruction_scalability);
  CHECK(*c.pop_b.instruction_scalability == Approx(0.8));
  CHECK(*c.pop_b.ipc_scalability == Approx((5.0 / 3.0) / 2.0));
  CHECK(*c.pop_a.instruction_scalability == 1);
  auto text = format_comparison(c, 10);
  CHECK_THAT(text, Catch::Contains("instruction scalability") && Catch::Contains("0.80"));
  CHECK_THAT(text, Catch::Contains("IPC scalability") && Catch::Contains("0.83"));

  // This machine's PAPI: available, but every count 0.
  counted(b, 0, 0);
  c = compare_profiles(a, b, Estimate::robust);
  CHECK_FALSE(c.pop_b.instruction_scalability);
  CHECK_THAT(format_comparison(c, 10),
             Catch::Contains("no instruction or IPC scalability: B: PAPI counted no instructions"));
  // No PAPI at all, and a profile-mode run.
  b.trace->papi_available = false;
  b.trace->papi_reason = "no hardware counters";
  CHECK_THAT(format_comparison(compare_profiles(a, b, Estimate::robust), 10),
             Catch::Contains("B: no PAPI counters: no hardware counters"));
  a.trace.reset();
  CHECK_THAT(format_comparison(compare_profiles(a, b, Estimate::robust), 10),
             Catch::Contains("A: a profile-mode run"));
}

TEST_CASE("waiting that grew with the communication, not the load, is not told to balance it") {
  // LAMMPS-like: on a slower link B, the exchange at line 40 waits 46 times longer,
  // the large transfers elsewhere take 16 s more, and the load imbalance is the same.
  auto a = profile(4, {site("MPI_Sendrecv", 40, 0x400, 0.2, 0.1, 100 * 64),
                       site("MPI_Send", 50, 0x500, 1.0, 0.0, 100 * 1e6)});
  auto b = profile(4, {site("MPI_Sendrecv", 40, 0x400, 4.8, 4.6, 100 * 64),
                       site("MPI_Send", 50, 0x500, 17.0, 0.0, 100 * 1e6)});
  for (auto* p : {&a, &b}) {
    p->efficiency.useful_max_s = 8.2;
    p->efficiency.useful_mean_s = 8.0;
  }
  for (auto& r : b.ranks) {
    r.mpi_s = 8;
    r.wait_s = r.estimates.wait_s_robust = r.estimates.wait_s_minimum = 3;
  }
  auto c = compare_profiles(a, b, Estimate::local);
  CHECK(find(c, "MPI_Sendrecv")->dominant == Dominant::propagated);
  auto text = format_comparison(c, 10);
  CHECK_THAT(text, Catch::Contains("waiting propagated from communication"));
  CHECK_THAT(text, !Catch::Contains("balance the load"));
  // The same growth with B's load imbalance grown by as much: the load.
  b.efficiency.useful_max_s = 10;
  c = compare_profiles(a, b, Estimate::local);
  CHECK(find(c, "MPI_Sendrecv")->dominant == Dominant::waiting);
  // Waiting that did not grow (10%): the load, whatever the network did.
  b.efficiency.useful_max_s = 8.2;
  b.callsites[0].wait_s = b.callsites[0].estimates.wait_s_robust =
      b.callsites[0].estimates.wait_s_minimum = b.callsites[0].wait_s_global_min = 0.11;
  b.callsites[0].time_s = 0.2;
  c = compare_profiles(a, b, Estimate::local);
  CHECK(find(c, "MPI_Sendrecv")->dominant == Dominant::waiting);
}
