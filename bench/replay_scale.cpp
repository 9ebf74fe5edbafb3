// The parallel replay's growth with the number of ranks: every rank holds the same
// number of events (a ring exchange each iteration, an Allreduce every 16, clocks
// off by up to ±3 µs so that the controlled logical clock has work), made by the
// rank itself, so nothing but the replay's own messages travels.
//   mpiexec -n P replay_scale parallel EVENTS_PER_RANK    (one rank per process)
//   replay_scale sequential EVENTS_PER_RANK P              (the reference, one process)
// Prints one JSON line: seconds (the slowest process), peak memory (the largest).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "process_memory.hpp"
#include "sync/parallel_sync.hpp"
#include "sync/trace_sync.hpp"
#include "transport/mpi_replay_network.hpp"

using namespace mpidle;

namespace {

std::uint64_t mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::int64_t jitter(std::uint32_t rank, std::uint64_t iteration, int what, std::int64_t most) {
  return static_cast<std::int64_t>(
      mix((iteration << 24) ^ (rank << 3) ^ static_cast<unsigned>(what)) %
      static_cast<std::uint64_t>(most));
}

model::RankTrace ring_rank(std::uint32_t rank, std::uint32_t ranks, std::uint64_t events) {
  model::RankTrace r;
  r.rank = static_cast<std::int32_t>(rank);
  const std::int64_t offset = jitter(rank, 0, 9, 6000) - 3000;
  const std::uint64_t iterations = events / 4;
  r.records.reserve(events / 2 + iterations / 16 + 1);
  auto add = [&](model::TraceRole role, std::int64_t enter, std::int64_t exit, std::int32_t peer) {
    model::TraceRecord rec;
    rec.role = role;
    rec.enter_ns = enter + offset;
    rec.exit_ns = exit + offset;
    rec.peer = peer;
    r.records.push_back(rec);
    return &r.records.back();
  };
  std::uint32_t instance = 0;
  for (std::uint64_t it = 0; it < iterations; ++it) {
    const std::int64_t now = static_cast<std::int64_t>(it) * 10'000;
    const std::int64_t send = now + jitter(rank, it, 0, 2000);
    add(model::TraceRole::send, send, send + 300, static_cast<std::int32_t>((rank + 1) % ranks));
    const std::int64_t recv = now + 2100 + jitter(rank, it, 1, 400);
    add(model::TraceRole::recv, recv, std::max(recv, now + 2600) + 200,
        static_cast<std::int32_t>((rank + ranks - 1) % ranks));
    if (it % 16 == 15) {
      auto* rec =
          add(model::TraceRole::collective, now + 3000 + jitter(rank, it, 2, 3000), now + 6500, -1);
      rec->sequence = instance++;
      rec->collective_kind = static_cast<std::uint8_t>(model::CollectiveKind::n_to_n);
    }
  }
  return r;
}

model::Trace tables() {
  model::Trace t;
  t.functions = {"f"};
  t.callsites = {model::Callsite{}};
  t.min_latency_ns = 200;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (me == 0) std::fprintf(stderr, "usage: replay_scale parallel|sequential EVENTS [RANKS]\n");
    MPI_Finalize();
    return 2;
  }
  const std::string mode = argv[1];
  const std::uint64_t events = std::strtoull(argv[2], nullptr, 10);
  sync::ClcParams params;
  params.min_latency_ns = 200;
  double seconds = 0, peak = 0;
  std::uint64_t moved = 0, ranks = 0;
  if (mode == "parallel") {
    ranks = static_cast<std::uint64_t>(size);
    model::Trace t = tables();
    t.ranks.push_back(
        ring_rank(static_cast<std::uint32_t>(me), static_cast<std::uint32_t>(size), events));
    std::vector<std::int32_t> world(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) world[static_cast<std::size_t>(r)] = r;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    sync::TraceSyncResult result;
    {
      transport::MpiReplayNetwork network(MPI_COMM_WORLD);
      sync::ParallelSync replay(network, {&t.ranks[0]}, sync::block_directory(world, size), params);
      while (!replay.step()) {
      }
      result = replay.result();
    }
    const double mine = MPI_Wtime() - start, my_peak = bench::status_mib("VmHWM:");
    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&my_peak, &peak, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    moved = result.clc.events_moved;
  } else {
    ranks = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 2;
    model::Trace t = tables();
    for (std::uint32_t r = 0; r < ranks; ++r) {
      t.ranks.push_back(ring_rank(r, static_cast<std::uint32_t>(ranks), events));
    }
    const double start = MPI_Wtime();
    const auto result = sync::synchronize_trace(t, params);
    seconds = MPI_Wtime() - start;
    peak = bench::status_mib("VmHWM:");
    moved = result.clc.events_moved;
  }
  if (me == 0) {
    std::printf(
        "{\"mode\": \"%s\", \"ranks\": %llu, \"events_per_rank\": %llu, \"seconds\": %.4f, "
        "\"peak_rss_mib\": %.1f, \"events_moved\": %llu}\n",
        mode.c_str(), static_cast<unsigned long long>(ranks),
        static_cast<unsigned long long>(events), seconds, peak,
        static_cast<unsigned long long>(moved));
  }
  MPI_Finalize();
  return 0;
}
