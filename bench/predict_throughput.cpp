// Prediction replay throughput (analysis/prediction.hpp) on the synthetic 64-rank,
// 10^7-event trace (synthetic_trace.hpp): the message matching and the replay on
// a model with a 2 us latency and 10 GB/s. Prints events/s and peak memory as JSON.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "analysis/prediction.hpp"
#include "sync/trace_matching.hpp"
#include "synthetic_trace.hpp"

using namespace mpidle;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  const std::uint32_t ranks = 64;
  const std::size_t target = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const model::Trace trace = bench::synthetic_ring_trace(ranks, target);
  std::size_t events = 0;
  for (const auto& r : trace.ranks) events += r.records.size();

  analysis::PredictionInput input;
  input.machine.name = "synthetic";
  input.machine.p2p = model::CostCurve{{{0, 2e-6}, {1'000'000, 2e-6 + 1e-4}}};
  input.machine.eager_limit_bytes = 65536;
  input.machine.collectives["Allreduce"].by_ranks[64] = model::CostCurve{{{0, 10e-6}}};

  auto t0 = std::chrono::steady_clock::now();
  const auto matching = sync::match_trace(trace);
  const double matching_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const auto p = analysis::predict(trace, matching, input);
  const double replay_s = seconds_since(t0);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "{\"ranks\": %u, \"events\": %zu, \"matching_s\": %.3f, \"replay_s\": %.3f, "
      "\"events_per_s\": %.0f, \"events_per_s_with_matching\": %.0f, \"peak_rss_mib\": %.1f, "
      "\"predicted_wall_s\": %.6f, \"measured_wall_s\": %.6f}\n",
      ranks, events, matching_s, replay_s, static_cast<double>(events) / replay_s,
      static_cast<double>(events) / (replay_s + matching_s),
      static_cast<double>(usage.ru_maxrss) / 1024.0, p.wall_s, p.measured_wall_s);
  return 0;
}
