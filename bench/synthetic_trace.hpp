#pragma once
// The synthetic synchronized trace the analysis and prediction benchmarks replay:
// `ranks` ranks and about `target` events, a ring exchange (send to the right,
// receive from the left) in every iteration and an Allreduce every
// `allreduce_every` iterations (16; 1 is a CG-like pattern), with random arrival
// times so that there is waiting to find.

#include <algorithm>
#include <cstdint>
#include <random>

#include "model/trace_file.hpp"

namespace mpidle::bench {

inline model::Trace synthetic_ring_trace(std::uint32_t ranks, std::size_t target,
                                         std::size_t allreduce_every = 16) {
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
    trace.ranks[r].records.reserve(iterations * 2 + iterations / allreduce_every);
    trace.ranks[r].synced.reserve(iterations * 4 + 2 * iterations / allreduce_every);
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
    if (it % allreduce_every == allreduce_every - 1) {
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
  return trace;
}

}  // namespace mpidle::bench
