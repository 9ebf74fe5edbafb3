// The parallel replay (sync/parallel_sync) with one simulated process per rank, all
// in this process over the loopback network, on a CG-like pattern: a ring
// exchange and an Allreduce on every rank in each of 8 iterations. Per rank count
// P on the command line (default 1,000 and 10,000), prints one JSON line:
//   rounds_per_collective     the most tree hops a member's answer was behind the
//                             times it depends on (goal: at most 2⌈log2 P⌉)
//   max_messages_per_process  the most replay items any process received
//   max_bytes_per_process     their bytes (72 per item)
//   collectives               Allreduce instances in the trace
//   peak_mib_per_process      the run's memory growth (its own VmHWM, traces included) / P
//   seconds                   the whole simulation, one core
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <chrono>

#include "process_memory.hpp"
#include "sync/parallel_sync.hpp"
#include "synthetic_trace.hpp"

using namespace mpidle;

namespace {

constexpr std::size_t kIterations = 8;

// A process' network, counting what reaches it.
class CountingNetwork : public sync::ReplayNetwork {
 public:
  explicit CountingNetwork(sync::ReplayNetwork& inner) : m_inner(inner) {}
  int processes() const override { return m_inner.processes(); }
  int self() const override { return m_inner.self(); }
  void send(int process, std::vector<sync::ReplayItem>&& batch) override {
    m_inner.send(process, std::move(batch));
  }
  bool receive(std::vector<sync::ReplayItem>& batch) override {
    if (!m_inner.receive(batch)) return false;
    m_items += batch.size();
    return true;
  }
  void start_reduction(const sync::ReplayTally& tally) override { m_inner.start_reduction(tally); }
  bool reduction_done(sync::ReplayTally& out) override { return m_inner.reduction_done(out); }
  std::uint64_t items() const { return m_items; }

 private:
  sync::ReplayNetwork& m_inner;
  std::uint64_t m_items = 0;
};

std::string simulate(std::uint32_t ranks) {
  malloc_trim(0);  // what an earlier simulation freed must not count as resident
  bench::reset_peak();
  const double before = bench::status_mib("VmRSS:");
  // 2 events per record: the ring's send and receive and the Allreduce per iteration.
  model::Trace trace = bench::synthetic_ring_trace(ranks, 2 * ranks * kIterations, 1);
  trace.min_latency_ns = 200;
  std::vector<std::int32_t> world;
  for (const auto& r : trace.ranks) world.push_back(r.rank);
  const auto processes = static_cast<int>(ranks);
  const sync::ReplayDirectory dir = sync::block_directory(world, processes);
  sync::ClcParams params;
  params.min_latency_ns = trace.min_latency_ns;
  const auto start = std::chrono::steady_clock::now();
  sync::Loopback loopback(processes);
  std::vector<std::unique_ptr<CountingNetwork>> networks;
  std::vector<std::unique_ptr<sync::ParallelSync>> replays;
  for (int q = 0; q < processes; ++q) {
    networks.push_back(std::make_unique<CountingNetwork>(loopback.network(q)));
    replays.push_back(std::make_unique<sync::ParallelSync>(
        *networks.back(), std::vector<model::RankTrace*>{&trace.ranks[static_cast<std::size_t>(q)]},
        dir, params));
  }
  std::vector<bool> done(replays.size(), false);
  for (std::size_t left = replays.size(); left > 0;) {
    for (std::size_t q = 0; q < replays.size(); ++q) {
      if (!done[q] && replays[q]->step()) {
        done[q] = true;
        --left;
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t most = 0;
  for (const auto& n : networks) most = std::max(most, n->items());
  const double peak = bench::status_mib("VmHWM:") - before;
  char out[512];
  std::snprintf(out, sizeof out,
                "{\"ranks\": %u, \"collectives\": %zu, \"rounds_per_collective\": %llu, "
                "\"max_messages_per_process\": %llu, "
                "\"max_bytes_per_process\": %llu, \"peak_mib_per_process\": %.4f, "
                "\"seconds\": %.3f}",
                ranks, kIterations,
                static_cast<unsigned long long>(replays.front()->collective_rounds()),
                static_cast<unsigned long long>(most),
                static_cast<unsigned long long>(most * sizeof(sync::ReplayItem)),
                peak / static_cast<double>(ranks), seconds);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint32_t> counts;
  for (int i = 1; i < argc; ++i) counts.push_back(static_cast<std::uint32_t>(std::atol(argv[i])));
  if (counts.empty()) counts = {1000, 10000};
  std::string rows;
  for (auto p : counts) {
    if (p < 2) {
      std::fprintf(stderr, "replay_simulated: rank counts must be at least 2\n");
      return 2;
    }
    rows += (rows.empty() ? "" : ", ") + simulate(p);
  }
  std::printf("{\"replay_simulated\": [%s]}\n", rows.c_str());
  return 0;
}
