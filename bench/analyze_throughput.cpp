// Wait-state analysis and delay analysis (root causes) throughput (analysis/) on
// the synthetic 64-rank, 10^7-event trace (synthetic_trace.hpp), and the delay
// analysis alone at 10^6 events, the most the trace finalize runs it on (rank 0).
// Prints events/s and peak memory as JSON.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "analysis/delay_analysis.hpp"
#include "analysis/wait_states.hpp"
#include "sync/trace_matching.hpp"
#include "synthetic_trace.hpp"

using namespace mpidle;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The delay analysis as the finalize runs it: the trace's matching, the wait states
// with their events, then the root causes. Seconds of the last step.
double delay_seconds(const model::Trace& trace, double* waiting_s) {
  const auto matching = sync::match_trace(trace);
  std::vector<analysis::WaitEvent> events;
  (void)analysis::analyze_wait_states(trace, matching, analysis::Progress{},
                                      [&](const analysis::WaitEvent& e) { events.push_back(e); });
  const auto t0 = std::chrono::steady_clock::now();
  const auto delays = analysis::analyze_delays(trace, matching, std::move(events));
  *waiting_s = delays.wait_s;
  return since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint32_t ranks = 64;
  const std::size_t target = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const model::Trace trace = bench::synthetic_ring_trace(ranks, target);
  std::size_t events = 0;
  for (const auto& r : trace.ranks) events += r.records.size();

  const auto t0 = std::chrono::steady_clock::now();
  const auto waits = analysis::analyze_wait_states(trace);
  const double seconds = since(t0);
  double delay_wait_s = 0;
  const double delays = delay_seconds(trace, &delay_wait_s);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  // The finalize's bound: 10^6 events.
  const model::Trace finalize_trace = bench::synthetic_ring_trace(ranks, 1'000'000);
  std::size_t finalize_events = 0;
  for (const auto& r : finalize_trace.ranks) finalize_events += r.records.size();
  double finalize_wait_s = 0;
  const double finalize_delays = delay_seconds(finalize_trace, &finalize_wait_s);
  std::printf(
      "{\"ranks\": %u, \"events\": %zu, \"seconds\": %.3f, \"events_per_s\": %.0f, "
      "\"peak_rss_mib\": %.1f, \"trace_mib\": %.1f, \"late_sender_s\": %.6f, "
      "\"wait_nxn_s\": %.6f, \"delay_seconds\": %.3f, \"delay_events_per_s\": %.0f, "
      "\"delay_wait_s\": %.6f, \"finalize_events\": %zu, \"finalize_delay_seconds\": %.3f}\n",
      ranks, events, seconds, static_cast<double>(events) / seconds,
      static_cast<double>(usage.ru_maxrss) / 1024.0,
      // The trace itself: a record and its two synchronized timestamps per event.
      static_cast<double>(events) * (sizeof(model::TraceRecord) + 16) / (1 << 20),
      waits.totals[static_cast<std::size_t>(analysis::Pattern::late_sender)],
      waits.totals[static_cast<std::size_t>(analysis::Pattern::wait_nxn)], delays,
      static_cast<double>(events) / delays, delay_wait_s, finalize_events, finalize_delays);
  return 0;
}
