#include "profiler/finalize/local_tables.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "profiler/runtime/module_map.hpp"

namespace mpidle::profiler {
namespace {

struct Totals {
  std::uint64_t visits = 0;
  Ticks total = 0;
  Ticks minimum = ~Ticks{0};
  std::uint64_t bytes = 0;
  std::uint64_t untimed = 0;
  std::array<DurationBin, kDurationBins> bins{};
};

// Polls left out of the timing sample (MPIDLE_POLL_SAMPLE) take their key's typical
// timed duration (typical_poll_duration); a key none of whose visits was timed, its
// function's mean over this process, and that mean as its minimum (a poll does not
// wait). A function without any timed visit keeps time 0.
template <typename Merged>
void estimate_untimed(Merged& merged) {
  std::map<std::uint16_t, std::pair<double, std::uint64_t>> by_function;  // time, visits
  for (const auto& [key, t] : merged) {
    auto& f = by_function[std::get<1>(key)];
    f.first += static_cast<double>(t.total);
    f.second += t.visits - t.untimed;
  }
  for (auto& [key, t] : merged) {
    if (t.untimed == 0) continue;
    const std::uint64_t timed = t.visits - t.untimed;
    if (timed > 0) {
      t.total += static_cast<Ticks>(typical_poll_duration(t.bins.data(), t.total, timed) *
                                    static_cast<double>(t.untimed));
      continue;
    }
    const auto& [time, visits] = by_function[std::get<1>(key)];
    const Ticks mean = visits > 0 ? static_cast<Ticks>(time / static_cast<double>(visits)) : 0;
    t.total = mean * t.untimed;
    t.minimum = mean;
  }
}

// Each region's time on this rank is its longest on any thread (threads of one
// rank run side by side: their sum would exceed the rank's wall time); entries
// add up.
void add_regions(const std::vector<const ThreadState*>& threads, const TickRate& rate,
                 const std::vector<std::string>& paths, model::ProfileTables& tables,
                 model::RankData& rank) {
  if (paths.size() <= 1) return;  // only "": the run marked no region
  tables.regions = paths;
  rank.region_wall_s.assign(paths.size(), 0.0);
  rank.region_visits.assign(paths.size(), 0);
  const Ticks end = now();
  std::vector<Ticks> wall;
  std::vector<std::uint64_t> visits;
  for (const ThreadState* thread : threads) {
    thread->regions().totals(end, wall, visits);
    for (std::size_t i = 0; i < paths.size() && i < wall.size(); ++i) {
      rank.region_wall_s[i] = std::max(rank.region_wall_s[i], rate.seconds(wall[i]));
      rank.region_visits[i] += visits[i];
    }
  }
}

using Stack = std::vector<std::uintptr_t>;
using Key =
    std::tuple<Stack, std::uint16_t, std::int16_t, std::int32_t, std::int32_t, std::uint16_t>;

}  // namespace

model::ProfileTables collect_local_tables(const std::vector<const ThreadState*>& threads,
                                          const TickRate& rate, const RankIdentity& identity) {
  // Threads of one process are merged per key before anything leaves the process.
  std::map<Key, Totals> merged;
  std::map<std::uint16_t, FirstCallRecord> first_calls;
  std::uint64_t dropped = 0;
  std::uint64_t memory = 0;
  for (const ThreadState* thread : threads) {
    memory += thread->memory_bytes();
    thread->calls().for_each([&](const CallKey& k, const CallStats& s) {
      Totals& t = merged[Key{stack_of(*thread, k.callsite), k.function, k.size_class, k.peer,
                             k.comm_shape, k.region}];
      t.visits += s.visits;
      t.total += s.total();
      t.minimum = std::min(t.minimum, s.minimum);
      t.bytes += s.bytes;
      t.untimed += s.untimed;
      for (unsigned b = 0; b < kDurationBins; ++b) {
        t.bins[b].count += s.bins[b].count;
        t.bins[b].sum += s.bins[b].sum;
      }
    });
    for (std::uint16_t fn = 0; fn < kMpiFnCount; ++fn) {
      const FirstCallRecord& f = thread->first_calls()[fn];
      if (f.start == 0) continue;
      auto [it, added] = first_calls.try_emplace(fn, f);
      if (!added && f.start < it->second.start) it->second = f;
    }
    dropped += thread->dropped();
  }

  estimate_untimed(merged);

  model::ProfileTables tables;
  std::map<std::uint16_t, std::uint32_t> function_index;
  auto function_id = [&](std::uint16_t fn) {
    auto [it, added] =
        function_index.try_emplace(fn, static_cast<std::uint32_t>(tables.functions.size()));
    if (added) tables.functions.emplace_back(kMpiFnNames[fn]);
    return it->second;
  };
  CallsiteNumbering callsites(tables.callsites);
  auto callsite_id = [&](const Stack& stack) { return callsites.id(stack); };

  model::RankData rank;
  rank.rank = identity.rank;
  rank.host = identity.host;
  rank.wall_s = identity.wall_s;
  rank.dropped_calls = dropped;
  rank.memory_bytes = memory;
  rank.untracked_requests = identity.untracked_requests;
  for (const auto& [key, t] : merged) {
    const auto& [stack, fn, size_class, peer, shape, region] = key;
    rank.untimed_calls += t.untimed;
    model::Entry entry{callsite_id(stack),
                       function_id(fn),
                       size_class,
                       peer,
                       t.visits,
                       rate.seconds(t.total),
                       rate.seconds(t.minimum),
                       static_cast<double>(t.bytes),
                       shape};
    entry.region = region;
    // Only the timed visits: an untimed poll's duration is an estimate.
    for (const DurationBin& b : t.bins) {
      model::add_durations(entry.durations, b.count, rate.seconds(b.sum));
    }
    rank.entries.push_back(std::move(entry));
  }
  add_regions(threads, rate, identity.regions, tables, rank);
  for (const auto& [fn, f] : first_calls) {
    rank.first_calls.push_back(model::FirstCall{function_id(fn), f.size_class, f.peer,
                                                rate.seconds(f.duration), f.comm_shape});
  }
  tables.ranks.push_back(std::move(rank));
  return tables;
}

}  // namespace mpidle::profiler
