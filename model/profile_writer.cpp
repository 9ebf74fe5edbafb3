#include "profile_writer.hpp"

#include "function_catalog.hpp"
#include "json_fields.hpp"
#include "pop_metrics.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "rank_matrix.hpp"

namespace mpidle::model {
namespace {

using nlohmann::json;

json run_json(const ProfileSummary& summary, const RunInfo& run, std::uint64_t total_calls) {
  std::set<std::string> hosts;
  std::uint64_t untimed = 0;
  for (const auto& r : summary.ranks) {
    hosts.insert(r.host);
    untimed += r.untimed_calls;
  }
  // Untimed polls cost a table update without the clock reads.
  const double overhead_s =
      static_cast<double>(total_calls - std::min(untimed, total_calls)) * run.per_call_overhead_s +
      static_cast<double>(untimed) * run.per_untimed_call_overhead_s;
  const double rank_seconds = run.wall_s * static_cast<double>(summary.ranks.size());
  return {{"executable", run.executable},
          {"args", run.args},
          {"ranks", summary.ranks.size()},
          {"hosts", std::vector<std::string>(hosts.begin(), hosts.end())},
          {"mpi_library", run.mpi_library},
          {"start", run.start},
          {"wall_s", run.wall_s},
          {"timer", run.timer},
          {"timer_resolution_s", run.timer_resolution_s},
          {"mode", run.mode},
          {"ended", run.ended},
          {"minimum", run.wait_estimate == "global" ? "global" : "local"},
          {"wait_estimate", run.wait_estimate},
          {"callsite_depth", run.callsite_depth},
          {"mpidle", {{"version", mpidle_version()}, {"built_for", run.built_for_mpi}}},
          {"overhead",
           {{"per_call_s", run.per_call_overhead_s},
            {"per_untimed_call_s", run.per_untimed_call_overhead_s},
            {"untimed_calls", untimed},
            {"total_s", overhead_s},
            {"fraction", rank_seconds > 0 ? overhead_s / rank_seconds : 0.0},
            {"setup_s", run.setup_s}}}};
}

// A callsite over all ranks: totals, and each visiting rank's wait for the statistics.
struct CallsiteTotals {
  std::uint64_t visits = 0;
  double bytes = 0, time_s = 0;
  WaitEstimates waits;
  std::vector<std::pair<std::int64_t, double>> rank_waits;  // (rank, wait), visiting ranks
};

// The reports' wait under the run's chosen estimate.
double chosen_wait(const WaitEstimates& w, const std::string& estimate) {
  if (estimate == "minimum") return w.wait_s_minimum;
  if (estimate == "global") return w.wait_s_global_min;
  if (estimate == "calibrated") return w.wait_s_calibrated;
  return w.wait_s;
}

// Every estimate of a row under its own name; `wait_s` is the chosen one.
void put_estimates(json& row, const WaitEstimates& w, const std::string& estimate) {
  row["wait_s"] = chosen_wait(w, estimate);
  row["wait_s_calibrated"] = w.wait_s_calibrated;
  row["wait_s_robust"] = w.wait_s;
  row["variation_s"] = w.variation_s;
  row["transfer_s"] = w.transfer_s;
  row["wait_or_transfer_s"] = w.wait_or_transfer_s;
  row["wait_s_minimum"] = w.wait_s_minimum;
  row["wait_s_global_min"] = w.wait_s_global_min;
}

// POP's efficiencies from the ranks' rows (docs/profile-format.md, "efficiency").
json efficiency_json(const PopEfficiency& e) {
  json out = {{"runtime_s", e.runtime_s},         {"useful_mean_s", e.useful_mean_s},
              {"useful_max_s", e.useful_max_s},   {"load_balance", e.load_balance},
              {"communication", e.communication}, {"parallel", e.parallel}};
  if (e.ideal_runtime_s) {
    out["ideal_runtime_s"] = *e.ideal_runtime_s;
    out["serialization"] = *e.serialization;
    out["transfer"] = *e.transfer;
  }
  return out;
}

// Non-empty bins as [lower edge in seconds, calls, their total seconds].
json histogram_json(const DurationHistogram& h) {
  json bins = json::array();
  for (const DurationBin& b : h) bins.push_back({duration_bin_lower_s(b.bin), b.count, b.sum_s});
  return bins;
}

json statistics_json(const RankStatistics& s) {
  if (s.count == 0) return {{"count", 0}};
  json top = json::array();
  for (const auto& [rank, wait] : s.top) top.push_back({{"rank", rank}, {"wait_s", wait}});
  return {
      {"count", s.count},
      {"wait_s", {{"min", s.min_s}, {"median", s.median_s}, {"mean", s.mean_s}, {"max", s.max_s}}},
      {"max_rank", s.max_rank},
      {"top", std::move(top)}};
}

}  // namespace

ProfileDocument build_profile(const ProfileSummary& summary, const RunInfo& run) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, CallsiteTotals> callsites;
  json ranks = json::array();
  std::uint64_t total_calls = 0;
  for (const RankSummary& rank : summary.ranks) {
    for (const CallsiteShare& share : rank.shares) {
      CallsiteTotals& c = callsites[{share.callsite, share.function}];
      c.visits += share.visits;
      c.bytes += share.bytes;
      c.time_s += share.time_s;
      c.waits.add(share);
      c.rank_waits.emplace_back(rank.rank, chosen_wait(share, run.wait_estimate));
    }
    total_calls += rank.calls;
    json row = {{"rank", rank.rank},
                {"host", rank.host},
                {"wall_s", rank.wall_s},
                {"mpi_s", rank.mpi_s},
                {"first_call_wait_s", rank.first_call_wait_s},
                {"calls", rank.calls},
                {"dropped_calls", rank.dropped_calls},
                {"memory_bytes", rank.memory_bytes},
                {"untracked_requests", rank.untracked_requests},
                {"untimed_calls", rank.untimed_calls},
                {"finalize_memory_bytes", rank.finalize_memory_bytes}};
    // Trace mode only; left out at 0 so that a profile-mode row stays as small as it was.
    if (rank.finalize_anonymous_bytes > 0) {
      row["finalize_anonymous_bytes"] = rank.finalize_anonymous_bytes;
    }
    put_estimates(row, rank, run.wait_estimate);
    ranks.push_back(std::move(row));
  }

  json function_rows = json::array();
  for (std::size_t fn = 0; fn < summary.functions.size(); ++fn) {
    const FunctionTotals& f = summary.function_totals[fn];
    if (f.calls == 0) continue;
    json row = {{"name", summary.functions[fn]},
                {"calls", f.calls},
                {"incomplete_calls", f.incomplete_calls},
                {"time_s", f.time_s},
                {"bytes", f.bytes},
                {"can_wait", can_wait(summary.functions[fn])}};
    put_estimates(row, f, run.wait_estimate);
    function_rows.push_back(std::move(row));
  }
  std::stable_sort(function_rows.begin(), function_rows.end(), [](const json& a, const json& b) {
    return a["time_s"].get<double>() > b["time_s"].get<double>();
  });

  // Callsites in order of decreasing wait; ids follow that order.
  using Key = std::pair<std::uint32_t, std::uint32_t>;
  std::vector<std::pair<Key, const CallsiteTotals*>> order;
  for (const auto& [key, totals] : callsites) order.emplace_back(key, &totals);
  std::stable_sort(order.begin(), order.end(), [&run](const auto& a, const auto& b) {
    return chosen_wait(a.second->waits, run.wait_estimate) >
           chosen_wait(b.second->waits, run.wait_estimate);
  });
  std::map<Key, const DurationHistogram*> durations_of;
  for (const CallsiteDurations& d : summary.callsite_durations) {
    durations_of[{d.callsite, d.function}] = &d.durations;
  }
  std::map<Key, std::uint32_t> column_of;
  json callsite_rows = json::array();
  for (const auto& [key, totals] : order) {
    const auto id = static_cast<std::uint32_t>(column_of.size());
    column_of[key] = id;
    callsite_rows.push_back({{"id", id},
                             {"function", summary.functions[key.second]},
                             {"frames", frames_json(summary.callsites[key.first])},
                             {"visits", totals->visits},
                             {"bytes", totals->bytes},
                             {"time_s", totals->time_s},
                             {"ranks", statistics_json(rank_statistics(totals->rank_waits))}});
    put_estimates(callsite_rows.back(), totals->waits, run.wait_estimate);
    const auto d = durations_of.find(key);
    callsite_rows.back()["durations"] =
        histogram_json(d != durations_of.end() ? *d->second : DurationHistogram{});
    const auto& merged = summary.callsites[key.first].merged_from;
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

  RankMatrix matrix;
  matrix.ranks = static_cast<std::uint32_t>(summary.ranks.size());
  matrix.callsites = static_cast<std::uint32_t>(order.size());
  matrix.cells.resize(std::size_t{matrix.ranks} * matrix.callsites);
  for (std::size_t row = 0; row < summary.ranks.size(); ++row) {
    for (const CallsiteShare& share : summary.ranks[row].shares) {
      MatrixCell& cell =
          matrix.cells[row * matrix.callsites + column_of.at({share.callsite, share.function})];
      cell.visits += share.visits;
      cell.time_s += static_cast<float>(share.time_s);
      cell.wait_s += static_cast<float>(chosen_wait(share, run.wait_estimate));
      cell.wait_s_global_min += static_cast<float>(share.wait_s_global_min);
    }
  }

  json minima_rows = json::array();
  const std::vector<double> baselines = robust_baselines(summary.minima);
  for (std::size_t i = 0; i < summary.minima.size(); ++i) {
    const GlobalMinimum& m = summary.minima[i];
    minima_rows.push_back({{"function", m.function},
                           {"size_class", m.size_class},
                           {"comm_size", comm_size_of(m.comm_shape)},
                           {"intercomm", is_intercomm(m.comm_shape)},
                           {"min_s", m.min_s},
                           {"rank", m.rank},
                           {"count", m.count},
                           {"ranks", m.ranks},
                           {"baseline_s", baselines[i]},
                           {"durations", histogram_json(m.durations)}});
  }

  // One line per rank: {"rank": r, "minima": [[function, size class, peer, comm size,
  // intercomm, min_s, count, bytes, wait_s], ...]}.
  std::string rank_minima;
  for (const RankSummary& rank : summary.ranks) {
    json rows = json::array();
    for (const LocalMinimum& m : rank.minima) {
      rows.push_back({summary.functions[m.function], m.size_class, m.peer,
                      comm_size_of(m.comm_shape), is_intercomm(m.comm_shape), m.min_s, m.count,
                      m.bytes, m.wait_s});
    }
    rank_minima += json{{"rank", rank.rank}, {"minima", std::move(rows)}}.dump();
    rank_minima += '\n';
  }

  // Regions, parents before their children (sorted paths do that).
  json region_rows = json::array();
  for (const RegionTotals& r : summary.regions) {
    json row = {{"path", r.path},
                {"parent", parent_region(r.path)},
                {"depth", region_depth(r.path)},
                {"visits", r.visits},
                {"ranks", r.ranks},
                {"calls", r.calls},
                {"wall_max_s", r.wall_max_s},
                {"wall_sum_s", r.wall_sum_s},
                {"mpi_s", r.mpi_s},
                {"useful_sum_s", r.useful_sum_s},
                {"useful_max_s", r.useful_max_s}};
    put_estimates(row, r, run.wait_estimate);
    row["efficiency"] = efficiency_json(region_efficiency(r, summary.ranks.size()));
    region_rows.push_back(std::move(row));
  }

  ProfileDocument doc;
  doc.rank_minima = std::move(rank_minima);
  doc.profile = {
      {"schema", kProfileSchema},
      {"run", run_json(summary, run, total_calls)},
      {"ranks", std::move(ranks)},
      {"efficiency", efficiency_json(pop_efficiency_of(summary.ranks))},
      {"regions", std::move(region_rows)},
      {"functions", std::move(function_rows)},
      {"callsites", std::move(callsite_rows)},
      {"minima", std::move(minima_rows)},
      {"rank_matrix",
       {{"file", kRankMatrixFile}, {"ranks", matrix.ranks}, {"callsites", matrix.callsites}}},
      {"rank_minima", {{"file", kRankMinimaFile}}}};
  doc.rank_matrix = encode_rank_matrix(matrix);
  return doc;
}

ProfileDocument build_profile(const ProfileTables& tables, const RunInfo& run) {
  return build_profile(summarize_all(tables), run);
}

json calibration_json(const Calibration& calibration, const GlobalMinima& minima) {
  const std::vector<double> robust = robust_baselines(minima);
  json keys = json::array();
  for (const auto& [key, cost] : calibration.keys) {
    const auto& [function, size_class, shape] = key;
    auto start = calibration.start_keys.find(key);
    const CalibratedCost sample = key_sample(calibration, key);
    const double n = static_cast<double>(sample.calls);
    json row = {{"function", function},
                {"size_class", size_class},
                {"comm_size", comm_size_of(shape)},
                {"intercomm", is_intercomm(shape)},
                {"calls", cost.calls},
                {"start_calls", start == calibration.start_keys.end() ? 0 : start->second.calls},
                {"baseline_calls", sample.calls},
                {"calibrated", cost.calls >= kMinCalibratedCalls},
                {"exact_wait_s", cost.wait_s},
                {"baseline_s", sample.calls ? sample.cost_s / n : 0.0},
                {"mean_bytes", sample.calls ? sample.bytes / n : 0.0},
                {"baseline_stderr_s", baseline_standard_error_s(sample)}};
    if (auto line = calibrated_baseline(calibration, key)) {
      row["baseline_s_per_byte"] = line->slope_s_per_byte;
    }
    GlobalMinimum probe{function, size_class, shape, 0, 0, 0, 0, {}};
    auto it =
        std::lower_bound(minima.begin(), minima.end(), probe, [](const auto& a, const auto& b) {
          return std::tie(a.function, a.size_class, a.comm_shape) <
                 std::tie(b.function, b.size_class, b.comm_shape);
        });
    if (it != minima.end() && it->function == function && it->size_class == size_class &&
        it->comm_shape == shape) {
      row["robust_baseline_s"] = robust[static_cast<std::size_t>(it - minima.begin())];
      row["run_calls"] = it->count;
    }
    keys.push_back(std::move(row));
  }
  // The run's keys that took a baseline interpolated between calibrated sizes.
  std::size_t interpolated = 0;
  for (const auto& m : minima) {
    const CalibrationKey key{m.function, m.size_class, m.comm_shape};
    interpolated += can_wait(m.function) && interpolated_baseline(calibration, key).has_value();
  }
  return {{"source", calibration.source},
          {"windows", calibration.windows},
          {"windows_cut", calibration.windows_cut},
          {"windows_capped", calibration.windows_capped},
          {"records", calibration.records},
          {"calls_left_out", calibration.calls_left_out},
          {"calibrated_keys", calibrated_keys(calibration)},
          {"calibrated_sites", calibrated_sites(calibration)},
          {"interpolated_keys", interpolated},
          {"min_calls", kMinCalibratedCalls},
          {"keys", std::move(keys)}};
}

namespace {

// A callsite row's identities (site_identity) as every rank named it: each raw stack
// it was merged from, or its own frames.
std::vector<std::string> row_identities(const json& row) {
  auto identity = [](const json& frames) {
    Callsite c;
    for (const auto& f : frames)
      c.frames.push_back({f.value("module", ""), f.value("offset", std::uint64_t{0}), "", "", 0});
    return site_identity(c);
  };
  std::vector<std::string> ids;
  if (row.contains("addresses") && row["addresses"].is_array() && !row["addresses"].empty()) {
    for (const auto& stack : row["addresses"]) ids.push_back(identity(stack));
  } else if (row.contains("frames")) {
    ids.push_back(identity(row["frames"]));
  }
  return ids;
}

}  // namespace

void add_window_causes(json& profile, const Calibration& calibration) {
  if (calibration.causes.empty() || !profile.contains("callsites")) return;
  WindowCauses all;
  for (const auto& [key, causes] : calibration.causes) all += causes;
  for (auto& row : profile["callsites"]) {
    WindowCauses c;
    const std::string function = row.value("function", "");
    for (const std::string& id : row_identities(row)) {
      auto it = calibration.causes.find({function, id});
      if (it != calibration.causes.end()) c += it->second;
    }
    if (c.wait_states == 0 || c.wait_s <= 0) continue;
    // The callsite's wait, split as the windows' wait states at it were.
    const double wait = row.value("wait_s", 0.0);
    auto part = [&](double seconds) { return wait * seconds / c.wait_s; };
    row["root_causes"] = {
        {"wait_states", c.wait_states},           {"windowed_wait_s", c.wait_s},
        {"computation_s", part(c.computation_s)}, {"latency_s", part(c.latency_s)},
        {"bandwidth_s", part(c.bandwidth_s)},     {"propagated_s", part(c.propagated_s)},
        {"unexplained_s", part(c.unexplained_s)}};
  }
  if (profile.contains("calibration")) {
    profile["calibration"]["root_causes"] = {
        {"wait_states", all.wait_states},     {"windowed_wait_s", all.wait_s},
        {"computation_s", all.computation_s}, {"latency_s", all.latency_s},
        {"bandwidth_s", all.bandwidth_s},     {"propagated_s", all.propagated_s},
        {"unexplained_s", all.unexplained_s}};
  }
}

}  // namespace mpidle::model
