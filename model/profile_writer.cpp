#include "profile_writer.hpp"

#include "json_fields.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "minima.hpp"

namespace mpidle::model {
namespace {

using nlohmann::json;

struct RankShare {
  std::uint64_t visits = 0;
  double time_s = 0;
  double wait_s = 0;
};

struct CallsiteTotals {
  std::uint64_t visits = 0;
  double bytes = 0;
  double time_s = 0;
  double wait_s = 0;
  double wait_s_global_min = 0;
  std::map<std::int32_t, RankShare> by_rank;
};

struct FunctionTotals {
  std::uint64_t calls = 0;
  std::uint64_t incomplete_calls = 0;
  double time_s = 0;
  double wait_s = 0;
  double wait_s_global_min = 0;
  double bytes = 0;
};

json run_json(const ProfileTables& tables, const RunInfo& run, std::uint64_t total_calls) {
  std::set<std::string> hosts;
  for (const auto& r : tables.ranks) hosts.insert(r.host);
  const double overhead_s = static_cast<double>(total_calls) * run.per_call_overhead_s;
  const double rank_seconds = run.wall_s * static_cast<double>(tables.ranks.size());
  return {{"executable", run.executable},
          {"args", run.args},
          {"ranks", tables.ranks.size()},
          {"hosts", std::vector<std::string>(hosts.begin(), hosts.end())},
          {"mpi_library", run.mpi_library},
          {"start", run.start},
          {"wall_s", run.wall_s},
          {"timer", run.timer},
          {"timer_resolution_s", run.timer_resolution_s},
          {"mode", run.mode},
          {"minimum", run.global_minimum ? "global" : "local"},
          {"callsite_depth", run.callsite_depth},
          {"overhead",
           {{"per_call_s", run.per_call_overhead_s},
            {"total_s", overhead_s},
            {"fraction", rank_seconds > 0 ? overhead_s / rank_seconds : 0.0}}}};
}

}  // namespace

json build_profile_json(const ProfileTables& tables, const RunInfo& run) {
  const Minima minima(tables);
  std::map<std::pair<std::uint32_t, std::uint32_t>, CallsiteTotals> callsites;
  std::map<std::uint32_t, FunctionTotals> functions;
  json ranks = json::array();
  json minima_rows = json::array();
  std::uint64_t total_calls = 0;

  for (std::size_t ri = 0; ri < tables.ranks.size(); ++ri) {
    const auto& rank = tables.ranks[ri];
    double mpi_s = 0, wait_s = 0, wait_g = 0;
    std::uint64_t calls = 0;
    std::map<std::tuple<std::uint32_t, std::int32_t, std::int32_t, std::int32_t>, std::uint64_t>
        key_visits;
    for (const auto& e : rank.entries) {
      const double w = minima.wait_local(ri, e);
      const double wg = minima.wait_global(e);
      mpi_s += e.time_s;
      wait_s += w;
      wait_g += wg;
      calls += e.visits;
      key_visits[{e.function, e.size_class, e.peer, e.comm_shape}] += e.visits;

      auto& c = callsites[{e.callsite, e.function}];
      c.visits += e.visits;
      c.bytes += e.bytes;
      c.time_s += e.time_s;
      c.wait_s += w;
      c.wait_s_global_min += wg;
      auto& share = c.by_rank[rank.rank];
      share.visits += e.visits;
      share.time_s += e.time_s;
      share.wait_s += w;

      auto& f = functions[e.function];
      f.calls += e.visits;
      if (e.size_class == kSizeClassIncomplete) f.incomplete_calls += e.visits;
      f.time_s += e.time_s;
      f.wait_s += w;
      f.wait_s_global_min += wg;
      f.bytes += e.bytes;
    }
    double first_call_wait_s = 0;
    for (const auto& fc : rank.first_calls) {
      const double m = minima.local(ri, fc.function, fc.size_class, fc.peer, fc.comm_shape);
      first_call_wait_s += std::max(0.0, fc.time_s - m);
    }
    for (const auto& [key, visits] : key_visits) {
      const auto& [fn, sc, peer, shape] = key;
      minima_rows.push_back({{"function", tables.functions[fn]},
                             {"size_class", sc},
                             {"peer", peer},
                             {"comm_size", comm_size_of(shape)},
                             {"intercomm", is_intercomm(shape)},
                             {"rank", rank.rank},
                             {"min_s", minima.local(ri, fn, sc, peer, shape)},
                             {"count", visits}});
    }
    total_calls += calls;
    ranks.push_back({{"rank", rank.rank},
                     {"host", rank.host},
                     {"wall_s", rank.wall_s},
                     {"mpi_s", mpi_s},
                     {"wait_s", wait_s},
                     {"wait_s_global_min", wait_g},
                     {"first_call_wait_s", first_call_wait_s},
                     {"calls", calls},
                     {"dropped_calls", rank.dropped_calls},
                     {"memory_bytes", rank.memory_bytes},
                     {"untracked_requests", rank.untracked_requests}});
  }

  json function_rows = json::array();
  for (const auto& [fn, f] : functions) {
    function_rows.push_back({{"name", tables.functions[fn]},
                             {"calls", f.calls},
                             {"incomplete_calls", f.incomplete_calls},
                             {"time_s", f.time_s},
                             {"wait_s", f.wait_s},
                             {"wait_s_global_min", f.wait_s_global_min},
                             {"bytes", f.bytes}});
  }
  std::stable_sort(function_rows.begin(), function_rows.end(), [](const json& a, const json& b) {
    return a["time_s"].get<double>() > b["time_s"].get<double>();
  });

  // Callsites in order of decreasing wait; ids follow that order.
  std::vector<std::pair<const std::pair<std::uint32_t, std::uint32_t>*, const CallsiteTotals*>>
      order;
  for (const auto& [key, totals] : callsites) order.emplace_back(&key, &totals);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->wait_s > b.second->wait_s;
  });
  json callsite_rows = json::array();
  std::uint32_t id = 0;
  for (const auto& [key, totals] : order) {
    json by_rank = json::array();
    for (const auto& [rank, share] : totals->by_rank) {
      by_rank.push_back({{"rank", rank},
                         {"visits", share.visits},
                         {"time_s", share.time_s},
                         {"wait_s", share.wait_s}});
    }
    callsite_rows.push_back({{"id", id++},
                             {"function", tables.functions[key->second]},
                             {"frames", frames_json(tables.callsites[key->first])},
                             {"visits", totals->visits},
                             {"bytes", totals->bytes},
                             {"time_s", totals->time_s},
                             {"wait_s", totals->wait_s},
                             {"wait_s_global_min", totals->wait_s_global_min},
                             {"by_rank", std::move(by_rank)}});
    const auto& merged = tables.callsites[key->first].merged_from;
    if (!merged.empty()) {
      json addresses = json::array();
      for (const auto& stack : merged) {
        json frames = json::array();
        for (const auto& f : stack) frames.push_back({{"module", f.module}, {"offset", f.offset}});
        addresses.push_back(std::move(frames));
      }
      callsite_rows.back()["addresses"] = std::move(addresses);
    }
  }

  return {{"schema", kProfileSchema},
          {"run", run_json(tables, run, total_calls)},
          {"ranks", std::move(ranks)},
          {"functions", std::move(function_rows)},
          {"callsites", std::move(callsite_rows)},
          {"minima", std::move(minima_rows)}};
}

}  // namespace mpidle::model
