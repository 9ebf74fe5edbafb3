// Wait-state analysis throughput (analysis/): a synthetic synchronized trace of
// 64 ranks and about 10^7 events, a ring exchange (send to the right, receive
// from the left) in every iteration and an Allreduce every 16 iterations, with
// random arrival times so that every pattern has waiting to find. Prints
// events/s and peak memory as JSON.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "analysis/wait_states.hpp"

using namespace mpidle;

int main(int argc, char** argv) {
  const std::uint32_t ranks = 64;
  const std::size_t target = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const std::size_t iterations = target / ranks / 2;
  std::mt19937_64 rng(1);
  model::Trace trace;
  trace.functions = {"MPI_Send", "MPI_Recv", "MPI_Allreduce"};
  trace.callsites.resize(3);
  trace.ranks.resize(ranks);
  auto add = [&](std::uint32_t r, std::uint32_t fn, model::TraceRole role, std::int64_t enter,
                 std::int64_t exit, std::int32_t peer) -> model::TraceRecord& {
    auto& rank = trace.ranks[r];
    model::TraceRecord rec;
    rec.function = fn;
    rec.callsite = fn;
    rec.role = role;
    rec.enter_ns = enter;
    rec.exit_ns = exit;
    rec.peer = peer;
    rank.records.push_back(rec);
    rank.synced.push_back(enter);
    rank.synced.push_back(exit);
    return rank.records.back();
  };
  for (std::uint32_t r = 0; r < ranks; ++r) {
    trace.ranks[r].rank = static_cast<std::int32_t>(r);
    trace.ranks[r].records.reserve(iterations * 2 + iterations / 8);
    trace.ranks[r].synced.reserve(iterations * 4 + iterations / 4);
  }
  std::int64_t now = 0;
  std::uint32_t sequence = 0;
  for (std::size_t it = 0; it < iterations; ++it) {
    now += 10'000;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const std::int64_t send = now + static_cast<std::int64_t>(rng() % 2000);
      add(r, 0, model::TraceRole::send, send, send + 300,
          static_cast<std::int32_t>((r + 1) % ranks));
      const std::int64_t recv = now + 500 + static_cast<std::int64_t>(rng() % 2000);
      add(r, 1, model::TraceRole::recv, recv, std::max(recv, now + 2600) + 200,
          static_cast<std::int32_t>((r + ranks - 1) % ranks));
    }
    if (it % 16 == 15) {
      now += 10'000;
      for (std::uint32_t r = 0; r < ranks; ++r) {
        const std::int64_t enter = now + static_cast<std::int64_t>(rng() % 3000);
        auto& rec = add(r, 2, model::TraceRole::collective, enter, now + 3500, -1);
        rec.comm = 1;
        rec.sequence = sequence;
        rec.collective_kind = static_cast<std::uint8_t>(model::CollectiveKind::n_to_n);
      }
      ++sequence;
    }
  }
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
