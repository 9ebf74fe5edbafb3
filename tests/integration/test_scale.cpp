// 4 and 8 ranks (oversubscribed on this machine): exact call counts, the global
// minimum over every rank, and the finalize tree's rounds and merge.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

void check_ring(int ranks) {
  const int iterations = 40;
  const auto dir = scratch_dir("scale_" + std::to_string(ranks));
  const auto r = run_mpi(ranks, program("ring_allreduce"), {std::to_string(iterations), "--json"},
                         {{"MPIDLE_OUTPUT", dir}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  REQUIRE(truth["ranks"].get<int>() == ranks);
  const auto p = model::read_profile(dir);

  // Every rank's row arrived through the tree, once, in order.
  REQUIRE(p.ranks.size() == static_cast<std::size_t>(ranks));
  for (int k = 0; k < ranks; ++k) {
    CHECK(p.ranks[k].rank == k);
    // Sendrecv, Allreduce (+1 check), Comm_rank, Comm_size.
    CHECK(p.ranks[k].calls == static_cast<std::uint64_t>(2 * iterations + 1 + 2));
  }
  CHECK(calls_of(p, "MPI_Sendrecv") == static_cast<std::uint64_t>(ranks * iterations));
  CHECK(calls_of(p, "MPI_Allreduce") == static_cast<std::uint64_t>(ranks * (iterations + 1)));

  // One Sendrecv callsite, visited by every rank; its shares add up to the total.
  const model::CallsiteRow* ring = nullptr;
  for (const auto& c : p.callsites) {
    if (c.function == "MPI_Sendrecv") ring = &c;
  }
  REQUIRE(ring != nullptr);
  CHECK(ring->rank_stats.count == static_cast<std::uint64_t>(ranks));
  REQUIRE(ring->by_rank.size() == static_cast<std::size_t>(ranks));
  std::uint64_t visits = 0;
  for (const auto& share : ring->by_rank) visits += share.visits;
  CHECK(visits == ring->visits);
  CHECK(ring->rank_stats.max_s >= ring->rank_stats.median_s);
  CHECK(ring->rank_stats.median_s >= ring->rank_stats.min_s);

  // The global minimum of the world Allreduce of 8 bytes is the smallest of every
  // rank's own minimum, seen on the rank that says so, over all ranks' visits.
  const model::MinimumRow* global = nullptr;
  for (const auto& m : p.minima) {
    if (m.function == "MPI_Allreduce" && m.size_class == 4 && m.comm_size == ranks) global = &m;
  }
  REQUIRE(global != nullptr);
  CHECK(global->ranks == static_cast<std::uint64_t>(ranks));
  CHECK(global->count == static_cast<std::uint64_t>(ranks * (iterations + 1)));
  double smallest = 1e9;
  std::int64_t where = -1;
  std::set<std::int64_t> ranks_with_key;
  for (const auto& m : p.rank_minima) {
    if (m.function != "MPI_Allreduce" || m.size_class != 4) continue;
    ranks_with_key.insert(m.rank);
    if (m.min_s < smallest) {
      smallest = m.min_s;
      where = m.rank;
    }
  }
  CHECK(ranks_with_key.size() == static_cast<std::size_t>(ranks));
  CHECK(global->min_s == smallest);
  CHECK(global->rank == where);
  // Each rank's Sendrecv is keyed by the rank it receives from (the receive half is
  // where a Sendrecv waits), as a world rank.
  for (const auto& m : p.rank_minima) {
    if (m.function == "MPI_Sendrecv") CHECK(m.peer == (m.rank + ranks - 1) % ranks);
  }

  // The tree: ceil(log2 P) rounds at rank 0, and it received every other rank's row.
  const auto doc = nlohmann::json::parse(read_text(dir + "/profile.json"));
  const auto& finalize = doc["run"]["finalize"];
  CHECK(finalize["rounds"].get<int>() == static_cast<int>(std::ceil(std::log2(ranks))));
  CHECK(finalize["bytes_received"].get<std::uint64_t>() > 0);
  // Rank 0's finalizing thread worked for part of its finalize, never longer.
  const double cpu_s = finalize["total_cpu_s"].get<double>();
  CHECK(cpu_s > 0);
  CHECK(cpu_s <= finalize["total_s"].get<double>());
  const auto& windows = doc["calibration"];
  CHECK(windows["finalize_cpu_s"].get<double>() > 0);
  CHECK(windows["finalize_cpu_s"].get<double>() <= windows["finalize_s"].get<double>());
  CHECK(windows["finalize_cpu_s"].get<double>() <= cpu_s);
}

}  // namespace

TEST_CASE("4 ranks: exact counts, the global minimum and the tree merge", "[mpi]") {
  check_ring(4);
}

TEST_CASE("8 ranks: exact counts, the global minimum and the tree merge", "[mpi]") {
  check_ring(8);
}
