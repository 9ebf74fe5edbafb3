// The finalize merge and the writer at 10,000 ranks, without MPI: every rank's
// table is built synthetically (a halo code: 3 callsites per neighbour, a few
// collectives), merged over the binomial tree through the codec, and written.
// Bounds (docs/profile-format.md, "How the ranks' tables meet"): the aggregate part
// of any message up the tree is the size of one rank's; profile.json grows by a
// fixed amount per rank; the whole thing is linear in P (the time bound only
// guards against quadratic growth, not speed: `make bench` measures speed).
#include <catch2/catch.hpp>

#include <chrono>

#include "model/profile_writer.hpp"
#include "model/summary_codec.hpp"

using namespace mpidle;

namespace {

constexpr int kRanks = 10000;

// Rank r: Send and Recv to r±1 (one callsite each), Allreduce and Barrier on
// MPI_COMM_WORLD; times vary with the rank so that statistics are not trivial.
model::ProfileTables rank_tables(std::int32_t r) {
  model::ProfileTables t;
  t.functions = {"MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Barrier"};
  for (std::uint64_t site = 0; site < 4; ++site) {
    t.callsites.push_back(
        model::Callsite{{model::Frame{"/bin/app", 0x1000 + 16 * site, "", "", 0}}, {}});
  }
  model::RankData d;
  d.rank = r;
  d.host = "node" + std::to_string(r / 64);
  d.wall_s = 100.0;
  const double skew = 1e-6 * (r % 97);
  for (std::int32_t peer : {(r + kRanks - 1) % kRanks, (r + 1) % kRanks}) {
    d.entries.push_back(model::Entry{0, 0, 14, peer, 1000, 2e-3 + skew, 1e-6, 8192e3, 0});
    d.entries.push_back(model::Entry{1, 1, 14, peer, 1000, 5e-3 + 3 * skew, 2e-6, 8192e3, 0});
  }
  d.entries.push_back(model::Entry{2, 2, 4, -1, 100, 1e-2 + 10 * skew, 5e-6, 800, kRanks});
  d.entries.push_back(model::Entry{3, 3, 0, -1, 10, 1e-3 + skew, 3e-6, 0, kRanks});
  d.first_calls.push_back(model::FirstCall{3, 0, -1, 1e-4, kRanks});
  t.ranks.push_back(std::move(d));
  return t;
}

}  // namespace

TEST_CASE("10,000 ranks: the tree merge and profile.json stay bounded", "[model][scale]") {
  const auto start = std::chrono::steady_clock::now();
  std::vector<model::ProfileTables> tables;
  tables.reserve(kRanks);
  for (int r = 0; r < kRanks; ++r) tables.push_back(rank_tables(r));

  // Pass 1: global minima up the tree; every message is one row per key.
  std::vector<model::GlobalMinima> minima;
  for (const auto& t : tables) minima.push_back(model::minima_of(t));
  std::size_t largest_minima_message = 0;
  int rounds = 0;
  for (int step = 1; step < kRanks; step <<= 1, ++rounds) {
    for (int r = 0; r + step < kRanks; r += 2 * step) {
      const auto bytes = model::encode_minima(minima[r + step]);
      largest_minima_message = std::max(largest_minima_message, bytes.size());
      model::merge_minima(minima[r], *model::decode_minima(bytes));
    }
  }
  CHECK(rounds == 14);  // ceil(log2 10,000)
  const auto global = minima[0];
  REQUIRE(global.size() == 4);
  CHECK(largest_minima_message == model::encode_minima(global).size());
  CHECK(global[0].function == "MPI_Allreduce");
  CHECK(global[0].count == std::uint64_t{100} * kRanks);

  // Pass 2: summaries up the tree. The aggregate part (everything but the rank
  // rows) of the largest message is that of a single rank.
  std::vector<model::ProfileSummary> node;
  node.reserve(kRanks);
  for (const auto& t : tables) node.push_back(model::summarize_rank(t, global));
  auto aggregate_bytes = [](model::ProfileSummary s) {
    s.ranks.clear();
    return model::encode_summary(s).size();
  };
  const std::size_t one_rank_aggregate = aggregate_bytes(node[0]);
  const std::size_t one_rank_bytes = model::encode_summary(node[1]).size();
  std::size_t largest_message = 0;
  for (int step = 1; step < kRanks; step <<= 1) {
    for (int r = 0; r + step < kRanks; r += 2 * step) {
      const auto bytes = model::encode_summary(node[r + step]);
      largest_message = std::max(largest_message, bytes.size());
      CHECK(aggregate_bytes(node[r + step]) == one_rank_aggregate);
      model::merge_summaries(node[r], *model::decode_summary(bytes));
      node[r + step] = {};
    }
  }
  auto& root = node[0];
  root.minima = global;
  REQUIRE(root.ranks.size() == kRanks);
  // The largest message comes from the half of the ranks: their rows, nothing more.
  CHECK(largest_message <=
        one_rank_aggregate + (kRanks / 2) * (one_rank_bytes - one_rank_aggregate));

  // profile.json: one row per rank plus a part that does not depend on P.
  const auto doc = model::build_profile(root, model::RunInfo{});
  const std::string text = doc.profile.dump(1);
  INFO("profile.json " << text.size() << " bytes, matrix " << doc.rank_matrix.size()
                       << " bytes, rank minima " << doc.rank_minima.size() << " bytes");
  CHECK(doc.profile["callsites"].size() == 4);
  CHECK(doc.profile["minima"].size() == 4);
  CHECK(text.size() < std::size_t{512} * kRanks + 100'000);
  CHECK(doc.rank_matrix.size() == 16 + std::size_t{20} * kRanks * 4);
  const auto& allreduce =
      *std::find_if(doc.profile["callsites"].begin(), doc.profile["callsites"].end(),
                    [](const auto& c) { return c["function"] == "MPI_Allreduce"; });
  CHECK(allreduce["ranks"]["count"] == kRanks);
  CHECK(allreduce["ranks"]["top"].size() == model::kTopRanks);
  CHECK(allreduce["ranks"]["max_rank"] == 96);  // skew is largest at r % 97 == 96

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO("10,000 ranks merged and written in " << seconds << " s");
  CHECK(seconds < 60);
}
