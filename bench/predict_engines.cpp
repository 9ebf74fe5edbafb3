// The two prediction engines side by side (docs/prediction.md, "The engine"): the
// synthetic ring trace (synthetic_trace.hpp) of RANKS ranks, one per node, on a
// cluster model of as many nodes (2 us and 10 GB/s between nodes, split-duplex),
// predicted by mpidle's own replay and by SimGrid. Prints each engine's seconds,
// events per second and peak memory (SimGrid's: its child process's) as JSON.
//   predict_engines RANKS EVENTS
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/prediction.hpp"
#include "analysis/simgrid_prediction.hpp"
#include "sync/trace_matching.hpp"
#include "synthetic_trace.hpp"

using namespace mpidle;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
double peak_rss_mib(int who) {
  rusage usage{};
  getrusage(who, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}
}  // namespace

int main(int argc, char** argv) {
  const auto ranks = static_cast<std::uint32_t>(argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64);
  const std::size_t target = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1'000'000;
  const model::Trace trace = bench::synthetic_ring_trace(ranks, target);
  std::size_t events = 0;
  for (const auto& r : trace.ranks) events += r.records.size();
  const auto matching = sync::match_trace(trace);

  analysis::PredictionInput input;
  input.machine.name = "cluster";
  input.machine.p2p = model::CostCurve{{{0, 0.3e-6}, {1'000'000, 0.3e-6 + 1e-4}}};
  input.machine.p2p_inter_node = model::CostCurve{{{0, 2e-6}, {1'000'000, 2e-6 + 1e-4}}};
  input.machine.eager_limit_bytes = 65536;
  input.machine.collectives["Allreduce"].by_ranks[static_cast<int>(ranks)] =
      model::CostCurve{{{0, 10e-6}}};
  for (std::uint32_t r = 0; r < ranks; ++r) input.hosts.push_back("node-" + std::to_string(r));

  const double before = peak_rss_mib(RUSAGE_SELF);
  auto t0 = std::chrono::steady_clock::now();
  const auto own = analysis::predict(trace, matching, input);
  const double own_s = seconds_since(t0);
  const double own_rss = peak_rss_mib(RUSAGE_SELF);
  std::printf(
      "{\"ranks\": %u, \"nodes\": %u, \"events\": %zu, \"trace_rss_mib\": %.1f, "
      "\"mpidle\": {\"seconds\": %.3f, \"events_per_s\": %.0f, \"peak_rss_mib\": %.1f, "
      "\"wall_s\": %.6f}",
      ranks, ranks, events, before, own_s, static_cast<double>(events) / own_s, own_rss,
      own.wall_s);
  if (analysis::simgrid_available()) {
    t0 = std::chrono::steady_clock::now();
    const auto simgrid = analysis::predict_simgrid(trace, matching, input);
    const double simgrid_s = seconds_since(t0);
    std::printf(
        ", \"simgrid\": {\"version\": \"%s\", \"seconds\": %.3f, \"events_per_s\": %.0f, "
        "\"peak_rss_mib\": %.1f, \"wall_s\": %.6f}",
        analysis::simgrid_version().c_str(), simgrid_s, static_cast<double>(events) / simgrid_s,
        peak_rss_mib(RUSAGE_CHILDREN), simgrid.wall_s);
  }
  std::printf("}\n");
  return 0;
}
