// Wait-state analysis throughput (analysis/) on the synthetic 64-rank, 10^7-event
// trace (synthetic_trace.hpp). Prints events/s and peak memory as JSON.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "analysis/wait_states.hpp"
#include "synthetic_trace.hpp"

using namespace mpidle;

int main(int argc, char** argv) {
  const std::uint32_t ranks = 64;
  const std::size_t target = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const model::Trace trace = bench::synthetic_ring_trace(ranks, target);
  std::size_t events = 0;
  for (const auto& r : trace.ranks) events += r.records.size();

  const auto t0 = std::chrono::steady_clock::now();
  const auto waits = analysis::analyze_wait_states(trace);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "{\"ranks\": %u, \"events\": %zu, \"seconds\": %.3f, \"events_per_s\": %.0f, "
      "\"peak_rss_mib\": %.1f, \"trace_mib\": %.1f, \"late_sender_s\": %.6f, "
      "\"wait_nxn_s\": %.6f}\n",
      ranks, events, seconds, static_cast<double>(events) / seconds,
      static_cast<double>(usage.ru_maxrss) / 1024.0,
      // The trace itself: a record and its two synchronized timestamps per event.
      static_cast<double>(events) * (sizeof(model::TraceRecord) + 16) / (1 << 20),
      waits.totals[static_cast<std::size_t>(analysis::Pattern::late_sender)],
      waits.totals[static_cast<std::size_t>(analysis::Pattern::wait_nxn)]);
  return 0;
}
