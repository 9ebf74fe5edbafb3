#include "profile_summary.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "function_catalog.hpp"
#include "minima.hpp"
#include "sorted_merge.hpp"
#include "table_merge.hpp"
#include "wait_baseline.hpp"

namespace mpidle::model {
namespace {

auto key_of(const GlobalMinimum& m) {
  return std::tie(m.function, m.size_class, m.comm_shape);
}

bool key_less(const GlobalMinimum& a, const GlobalMinimum& b) {
  return key_of(a) < key_of(b);
}

}  // namespace

GlobalMinima minima_of(const ProfileTables& tables) {
  std::map<std::tuple<std::string, std::int32_t, std::int32_t>, GlobalMinimum> by_key;
  for (const auto& rank : tables.ranks) {
    std::map<std::tuple<std::string, std::int32_t, std::int32_t>, bool> seen_here;
    for (const auto& e : rank.entries) {
      if (e.visits == 0) continue;
      const auto key = std::make_tuple(tables.functions[e.function], e.size_class, e.comm_shape);
      auto [it, added] = by_key.try_emplace(key);
      GlobalMinimum& m = it->second;
      if (added) {
        m = GlobalMinimum{
            tables.functions[e.function], e.size_class, e.comm_shape, e.min_s, rank.rank, 0, 0, {}};
      } else if (e.min_s < m.min_s || (e.min_s == m.min_s && rank.rank < m.rank)) {
        m.min_s = e.min_s;
        m.rank = rank.rank;
      }
      m.count += e.visits;
      merge_histograms(m.durations, e.durations);
      if (seen_here.try_emplace(key, true).second) ++m.ranks;
    }
  }
  GlobalMinima out;
  out.reserve(by_key.size());
  for (auto& [key, m] : by_key) out.push_back(std::move(m));
  return out;
}

void merge_minima(GlobalMinima& into, const GlobalMinima& from) {
  merge_sorted(into, from, key_less, [](GlobalMinimum& m, const GlobalMinimum& b) {
    if (b.min_s < m.min_s || (b.min_s == m.min_s && b.rank < m.rank)) {
      m.min_s = b.min_s;
      m.rank = b.rank;
    }
    m.count += b.count;
    m.ranks += b.ranks;
    merge_histograms(m.durations, b.durations);
  });
}

double robust_baseline_s(const GlobalMinimum& m) {
  return robust_baseline_s(m.durations, m.min_s);
}

namespace {

// Blocking point-to-point calls whose no-wait cost bounds each other's: what moving
// one message of a size class costs, seen from either end.
enum class Side { none, send, receive };

Side side_of(const GlobalMinimum& m) {
  if (m.comm_shape != kNoCommShape || m.size_class <= 0) return Side::none;
  const FunctionInfo* f = find_function(m.function);
  if (f == nullptr || f->group != FunctionGroup::point_to_point) return Side::none;
  if (f->kind == "recv" || f->kind == "mrecv") return Side::receive;
  if (f->kind == "send" || f->kind == "ssend") return Side::send;
  return Side::none;
}

}  // namespace

std::vector<double> robust_baselines(const GlobalMinima& global) {
  std::vector<double> out(global.size());
  // The lowest robust baseline of each side per size class.
  std::map<std::pair<Side, std::int32_t>, double> lowest;
  for (std::size_t i = 0; i < global.size(); ++i) {
    out[i] = robust_baseline_s(global[i]);
    const Side side = side_of(global[i]);
    if (side == Side::none) continue;
    auto [it, added] = lowest.try_emplace({side, global[i].size_class}, out[i]);
    if (!added) it->second = std::min(it->second, out[i]);
  }
  for (std::size_t i = 0; i < global.size(); ++i) {
    const Side side = side_of(global[i]);
    if (side == Side::none) continue;
    const Side partner = side == Side::send ? Side::receive : Side::send;
    auto it = lowest.find({partner, global[i].size_class});
    if (it == lowest.end()) continue;
    // Below the key's fastest call too: where every call waited, so did the fastest.
    out[i] = std::min(out[i], kPartnerCostRatio * it->second);
  }
  return out;
}

TransferTimes transfer_times(const GlobalMinima& global, const std::vector<double>& baselines) {
  // A blocking receive that did not wait took its message's transfer; a blocking
  // send, for a message too large to be sent eagerly, too (for an eager one, less:
  // the copy), so receives are preferred.
  TransferTimes receives, sends;
  for (std::size_t i = 0; i < global.size(); ++i) {
    const GlobalMinimum& m = global[i];
    if (m.comm_shape != kNoCommShape || m.size_class <= 0) continue;
    const FunctionInfo* f = find_function(m.function);
    if (f == nullptr || f->group != FunctionGroup::point_to_point) continue;
    const bool receive = f->kind == "recv" || f->kind == "mrecv" || f->kind == "sendrecv";
    const bool send = f->kind == "send" || f->kind == "ssend";
    if (!receive && !send) continue;
    auto& into = receive ? receives : sends;
    const double t = baselines[i];
    auto [it, added] = into.try_emplace(m.size_class, t);
    if (!added) it->second = std::min(it->second, t);
  }
  for (const auto& [size_class, t] : sends) receives.try_emplace(size_class, t);
  return receives;
}

ProfileSummary summarize_rank(const ProfileTables& tables, const GlobalMinima& global,
                              const Calibration* calibration) {
  ProfileSummary s;
  s.functions = tables.functions;
  s.callsites = tables.callsites;
  s.function_totals.resize(tables.functions.size());
  // The global minimum and robust baseline of each of this rank's (function, size
  // class, shape).
  struct Baselines {
    double minimum_s = 0, robust_s = 0;
    std::optional<CalibratedBaseline> calibrated;
    bool interpolated = false;  // the calibrated baseline is its neighbours' line
  };
  std::map<std::tuple<std::uint32_t, std::int32_t, std::int32_t>, Baselines> baselines;
  const std::vector<double> robust = robust_baselines(global);
  for (std::uint32_t f = 0; f < tables.functions.size(); ++f) {
    GlobalMinimum probe{tables.functions[f], 0, 0, 0, 0, 0, 0, {}};
    auto it = std::lower_bound(global.begin(), global.end(), probe, key_less);
    for (; it != global.end() && it->function == tables.functions[f]; ++it) {
      const auto i = static_cast<std::size_t>(it - global.begin());
      std::optional<CalibratedBaseline> calibrated;
      bool interpolated = false;
      if (calibration) {
        const CalibrationKey key{it->function, it->size_class, it->comm_shape};
        calibrated = calibrated_baseline(*calibration, key);
        if (!calibrated && can_wait(it->function)) {
          calibrated = interpolated_baseline(*calibration, key);
          interpolated = calibrated.has_value();
        }
      }
      baselines[{f, it->size_class, it->comm_shape}] = {it->min_s, robust[i], calibrated,
                                                        interpolated};
    }
  }
  std::vector<bool> waits(tables.functions.size()), completes(tables.functions.size());
  for (std::uint32_t f = 0; f < tables.functions.size(); ++f) {
    waits[f] = can_wait(tables.functions[f]);
    completes[f] = is_completion(tables.functions[f]);
  }
  const TransferTimes transfer = transfer_times(global, robust);
  const Minima local(tables);
  SiteIdentities sites(tables.callsites);
  std::map<std::pair<std::uint32_t, std::uint32_t>, CallsiteDurations> durations;
  for (std::size_t ri = 0; ri < tables.ranks.size(); ++ri) {
    const RankData& rank = tables.ranks[ri];
    RankSummary row;
    row.rank = rank.rank;
    row.host = rank.host;
    row.wall_s = rank.wall_s;
    row.dropped_calls = rank.dropped_calls;
    row.memory_bytes = rank.memory_bytes;
    row.untracked_requests = rank.untracked_requests;
    row.untimed_calls = rank.untimed_calls;
    std::map<std::pair<std::uint32_t, std::uint32_t>, CallsiteShare> shares;
    std::map<std::tuple<std::uint32_t, std::int32_t, std::int32_t, std::int32_t>, LocalMinimum>
        key_totals;
    std::vector<RegionCall> region_calls;
    // Each callsite key's visits on this rank: the windows' calls there (all, and the
    // first window's) are shared out over its entries by their visits.
    std::map<SiteCalibrationKey, double> site_visits;
    if (calibration && (!calibration->own_sites.empty() || !calibration->own_start_sites.empty())) {
      for (const auto& e : rank.entries) {
        const std::string* site = sites.of(e.callsite);
        if (site && waits[e.function]) {
          site_visits[{tables.functions[e.function], e.size_class, e.comm_shape, *site}] +=
              static_cast<double>(e.visits);
        }
      }
    }
    // This rank's calls of an entry's key at its callsite that the windows judged,
    // and its visits there (all entries of that key and callsite).
    auto own_calls_judged = [&](const Entry& e) -> std::pair<const CalibratedCost*, double> {
      const std::string* site = site_visits.empty() ? nullptr : sites.of(e.callsite);
      if (!site) return {nullptr, 0};
      const SiteCalibrationKey at{tables.functions[e.function], e.size_class, e.comm_shape, *site};
      auto v = site_visits.find(at);
      if (v == site_visits.end() || v->second <= 0) return {nullptr, 0};
      auto seen = calibration->own_sites.find(at);
      if (seen == calibration->own_sites.end()) return {nullptr, 0};
      return {&seen->second, v->second};
    };
    for (const auto& e : rank.entries) {
      WaitEstimates w;
      w.wait_s_minimum = local.wait_local(ri, e);
      LocalMinimum& key = key_totals[{e.function, e.size_class, e.peer, e.comm_shape}];
      key.count += e.visits;
      key.bytes += e.bytes;
      key.wait_s += w.wait_s_minimum;
      auto g = baselines.find({e.function, e.size_class, e.comm_shape});
      // A key the reduction did not see (it cannot happen in one run) falls back to local.
      const Baselines b = g != baselines.end() ? g->second : Baselines{e.min_s, e.min_s, {}};
      const double visits = static_cast<double>(e.visits);
      w.wait_s_global_min = std::max(0.0, e.time_s - visits * b.minimum_s);
      // The robust wait of `calls` calls that took `time_s`, and the transfer a Wait
      // can hold (not waiting).
      const auto t =
          completes[e.function] && e.size_class > 0 ? transfer.find(e.size_class) : transfer.end();
      struct RobustWait {
        double wait_s = 0, transfer_s = 0;
      };
      auto robust_wait = [&](double time_s, double calls) {
        const double above = std::max(0.0, time_s - calls * b.robust_s);
        if (t == transfer.end()) return RobustWait{above, 0};
        const double held = std::min(above, calls * t->second);
        return RobustWait{above - held, held};
      };
      const double above_robust = std::max(0.0, e.time_s - visits * b.robust_s);
      if (!waits[e.function]) {
        w.variation_s = above_robust;
      } else {
        const RobustWait r = robust_wait(e.time_s, visits);
        w.wait_s = r.wait_s;
        w.transfer_s = r.transfer_s;
        if (completes[e.function] && e.size_class > 0 && t == transfer.end()) {
          w.wait_or_transfer_s = w.wait_s;
        }
      }
      // The calibrated baseline is what such a call costs, its transfer included: the
      // time above it is wait. The callsite's own where it has enough calls; at the
      // entry's own mean bytes.
      std::optional<CalibratedBaseline> calibrated = b.calibrated;
      if (calibrated && !b.interpolated && !calibration->sites.empty() && waits[e.function]) {
        if (const std::string* site = sites.of(e.callsite)) {
          calibrated =
              at_site(*calibration, {tables.functions[e.function], e.size_class, e.comm_shape},
                      *site, *calibrated);
        }
      }
      if (!waits[e.function]) {
        w.wait_s_calibrated = 0;
      } else if (calibrated) {
        double baseline_s = calibrated->at(e.visits ? e.bytes / visits : 0.0);
        // A mean that one or two judged calls decide (the rank descheduled in one) is
        // not above what the robust estimate takes such a call to cost.
        if (calibrated->effective_calls < kMinEffectiveCalls) {
          const double transfer_s = t == transfer.end() ? 0.0 : t->second;
          baseline_s = std::min(baseline_s, b.robust_s + transfer_s);
        }
        double start_s = 0;  // the first window's calls at their exact wait
        const std::string* site = site_visits.empty() ? nullptr : sites.of(e.callsite);
        if (site) {
          const SiteCalibrationKey at{tables.functions[e.function], e.size_class, e.comm_shape,
                                      *site};
          auto v = site_visits.find(at);
          if (v != site_visits.end() && v->second > 0) {
            start_s = visits / v->second * start_window_correction_s(*calibration, at, baseline_s);
          }
        }
        w.wait_s_calibrated = std::max(0.0, e.time_s - visits * baseline_s + start_s);
      } else if (const auto [seen, site_calls] = own_calls_judged(e); seen && seen->calls > 0) {
        // Too few calls judged to stand for the others, but those judged have their
        // exact wait (a key of 5 calls, 4 of them in windows): only the rest fall back.
        const double share = visits / site_calls;
        const double rest_calls = std::max(0.0, visits - share * static_cast<double>(seen->calls));
        const double rest_s = std::max(0.0, e.time_s - share * (seen->cost_s + seen->wait_s));
        w.wait_s_calibrated = share * seen->wait_s + robust_wait(rest_s, rest_calls).wait_s;
      } else {
        w.wait_s_calibrated = w.wait_s;
      }
      row.mpi_s += e.time_s;
      row.add(w);
      if (e.region != 0) region_calls.push_back(RegionCall{e.region, e.visits, e.time_s, w});
      row.calls += e.visits;
      CallsiteShare& share = shares[{e.callsite, e.function}];
      share.callsite = e.callsite;
      share.function = e.function;
      share.visits += e.visits;
      share.time_s += e.time_s;
      share.add(w);
      share.bytes += e.bytes;
      FunctionTotals& f = s.function_totals[e.function];
      f.calls += e.visits;
      if (e.size_class == kSizeClassIncomplete) f.incomplete_calls += e.visits;
      f.time_s += e.time_s;
      f.add(w);
      f.bytes += e.bytes;
      CallsiteDurations& d = durations[{e.callsite, e.function}];
      d.callsite = e.callsite;
      d.function = e.function;
      merge_histograms(d.durations, e.durations);
    }
    for (const auto& fc : rank.first_calls) {
      const double m = local.local(ri, fc.function, fc.size_class, fc.peer, fc.comm_shape);
      row.first_call_wait_s += std::max(0.0, fc.time_s - m);
    }
    for (auto& [key, share] : shares) row.shares.push_back(share);
    for (const auto& [key, totals] : key_totals) {
      const auto& [fn, sc, peer, shape] = key;
      row.minima.push_back(LocalMinimum{fn, sc, peer, shape, local.local(ri, fn, sc, peer, shape),
                                        totals.count, totals.bytes, totals.wait_s});
    }
    s.ranks.push_back(std::move(row));
    if (!tables.regions.empty()) {
      merge_regions(s.regions, rank_regions(tables.regions, rank.region_wall_s, rank.region_visits,
                                            region_calls));
    }
  }
  for (auto& [key, d] : durations) s.callsite_durations.push_back(std::move(d));
  return s;
}

void merge_summaries(ProfileSummary& into, const ProfileSummary& from) {
  const IndexMaps maps =
      unify_tables(into.functions, into.callsites, from.functions, from.callsites);
  into.function_totals.resize(into.functions.size());
  for (std::size_t f = 0; f < from.function_totals.size(); ++f) {
    FunctionTotals& t = into.function_totals[maps.functions.at(f)];
    const FunctionTotals& o = from.function_totals[f];
    t.calls += o.calls;
    t.incomplete_calls += o.incomplete_calls;
    t.time_s += o.time_s;
    t.add(o);
    t.bytes += o.bytes;
  }
  const std::size_t first_new = into.ranks.size();
  for (const auto& rank : from.ranks) {
    RankSummary copy = rank;
    for (auto& share : copy.shares) {
      share.callsite = maps.callsites.at(share.callsite);
      share.function = maps.functions.at(share.function);
    }
    for (auto& m : copy.minima) m.function = maps.functions.at(m.function);
    std::sort(copy.shares.begin(), copy.shares.end(), [](const auto& a, const auto& b) {
      return std::tie(a.callsite, a.function) < std::tie(b.callsite, b.function);
    });
    into.ranks.push_back(std::move(copy));
  }
  // Subtrees arrive in rank order in a binomial tree; merge keeps that cheap.
  std::inplace_merge(into.ranks.begin(),
                     into.ranks.begin() + static_cast<std::ptrdiff_t>(first_new), into.ranks.end(),
                     [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
  merge_minima(into.minima, from.minima);
  merge_regions(into.regions, from.regions);
  // Callsite histograms: the other side's, renumbered (which can reorder them), then
  // added up per (callsite, function).
  std::vector<CallsiteDurations> renumbered;
  renumbered.reserve(from.callsite_durations.size());
  for (const auto& d : from.callsite_durations) {
    renumbered.push_back(
        {maps.callsites.at(d.callsite), maps.functions.at(d.function), d.durations});
  }
  const auto site_less = [](const CallsiteDurations& a, const CallsiteDurations& b) {
    return std::tie(a.callsite, a.function) < std::tie(b.callsite, b.function);
  };
  std::sort(renumbered.begin(), renumbered.end(), site_less);
  merge_sorted(into.callsite_durations, renumbered, site_less,
               [](CallsiteDurations& a, const CallsiteDurations& b) {
                 merge_histograms(a.durations, b.durations);
               });
}

ProfileSummary summarize_all(const ProfileTables& tables) {
  const GlobalMinima global = minima_of(tables);
  std::vector<ProfileSummary> parts;
  parts.reserve(tables.ranks.size());
  for (const auto& rank : tables.ranks) {
    parts.push_back(summarize_rank(
        ProfileTables{tables.functions, tables.callsites, {rank}, tables.regions}, global));
  }
  // The binomial tree of the profiler's finalize: ceil(log2 P) rounds.
  for (std::size_t step = 1; step < parts.size(); step <<= 1) {
    for (std::size_t r = 0; r + step < parts.size(); r += 2 * step) {
      merge_summaries(parts[r], parts[r + step]);
      parts[r + step] = ProfileSummary{};
    }
  }
  ProfileSummary all = parts.empty() ? ProfileSummary{} : std::move(parts.front());
  all.minima = global;
  return all;
}

}  // namespace mpidle::model
