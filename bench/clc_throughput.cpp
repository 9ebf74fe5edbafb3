// Controlled-logical-clock throughput on a synthetic trace: 64 ranks, 10^7 events
// in all, a ring exchange (send to the right, receive from the left) in every
// iteration and an Allreduce every 16 iterations, with per-rank clock skew so that
// many receives precede their sends. Prints events/s and peak memory, as JSON.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "sync/controlled_clock.hpp"

using namespace mpidle::sync;

int main(int argc, char** argv) {
  const std::uint32_t ranks = 64;
  const std::size_t target = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  // Per iteration and rank: send, receive, and (every 16th) Allreduce enter + exit.
  const std::size_t iterations = target / ranks / 2;
  std::mt19937_64 rng(1);
  std::vector<std::int64_t> skew(ranks);
  for (auto& s : skew) s = static_cast<std::int64_t>(rng() % 20'000) - 10'000;

  RankTimes times(ranks);
  std::vector<std::size_t> sizes(ranks, 0);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    sizes[r] = iterations * 2 + (iterations / 16) * 2;
    times[r].reserve(sizes[r]);
  }
  EventGraph g(sizes);
  std::vector<EventRef> enters(ranks), exits(ranks);
  std::int64_t now = 0;
  for (std::size_t it = 0; it < iterations; ++it) {
    now += 10'000;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const auto i = static_cast<std::uint32_t>(times[r].size());
      times[r].push_back(now + skew[r] + static_cast<std::int64_t>(rng() % 500));          // send
      times[r].push_back(now + 3'000 + skew[r] + static_cast<std::int64_t>(rng() % 500));  // recv
      g.message({r, i}, {(r + 1) % ranks, i + 1});
    }
    if (it % 16 == 15) {
      now += 10'000;
      for (std::uint32_t r = 0; r < ranks; ++r) {
        const auto i = static_cast<std::uint32_t>(times[r].size());
        times[r].push_back(now + skew[r] + static_cast<std::int64_t>(rng() % 2000));
        times[r].push_back(now + 4'000 + skew[r]);
        enters[r] = {r, i};
        exits[r] = {r, i + 1};
      }
      g.n_to_n(enters, exits);
    }
  }
  std::size_t events = 0;
  for (const auto& t : times) events += t.size();

  ClcParams p;
  p.min_latency_ns = 1'000;
  const auto t0 = std::chrono::steady_clock::now();
  const ClcStats s = synchronize(g, times, p);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "{\"ranks\": %u, \"events\": %zu, \"seconds\": %.3f, \"events_per_s\": %.0f, "
      "\"peak_rss_mib\": %.1f, \"violations_before\": %llu, \"violations_after\": %llu, "
      "\"events_moved\": %llu}\n",
      ranks, events, seconds, static_cast<double>(events) / seconds,
      static_cast<double>(usage.ru_maxrss) / 1024.0,
      static_cast<unsigned long long>(s.violations_before),
      static_cast<unsigned long long>(s.violations_after),
      static_cast<unsigned long long>(s.events_moved));
  return s.violations_after == 0 ? 0 : 1;
}
