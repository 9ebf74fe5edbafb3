#include "prediction_tally.hpp"

#include <algorithm>
#include <limits>

namespace mpidle::analysis {
namespace {

constexpr std::size_t kNoSite = std::numeric_limits<std::size_t>::max();

double to_s(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

}  // namespace

PredictionTally::PredictionTally(const model::Trace& trace)
    : m_trace(trace), m_split(trace.ranks.size()) {}

// A flat table when the trace's tables are small (they are, in practice), else a
// hash map.
std::size_t PredictionTally::site_of(const model::TraceRecord& main) {
  const std::size_t functions = m_trace.functions.size();
  const std::size_t cells = functions * m_trace.callsites.size();
  std::size_t* slot = nullptr;
  if (cells <= (std::size_t{1} << 22)) {
    if (m_site_table.empty()) m_site_table.assign(cells, kNoSite);
    slot = &m_site_table[main.callsite * functions + main.function];
  } else {
    const std::uint64_t key = (main.callsite << 32) | main.function;
    slot = &m_site_index.try_emplace(key, kNoSite).first->second;
  }
  if (*slot == kNoSite) {
    *slot = m_sites.size();
    SitePrediction site;
    site.function = main.function;
    site.callsite = static_cast<std::uint32_t>(main.callsite);
    m_sites.push_back(site);
  }
  return *slot;
}

void PredictionTally::call(std::uint32_t r, const model::TraceRecord& main, std::int64_t burst_ns,
                           std::int64_t enter_ns, std::int64_t exit_ns, std::int64_t work_ns,
                           std::int64_t work_latency_ns, bool local_call) {
  TimeSplit t;
  t.compute_s = to_s(burst_ns);
  const std::int64_t duration = exit_ns - enter_ns;
  if (local_call) {
    t.other_s = to_s(duration);
  } else {
    const std::int64_t model = std::min(duration, work_ns);
    const std::int64_t latency = std::min(model, work_latency_ns);
    t.latency_s = to_s(latency);
    t.bandwidth_s = to_s(model - latency);
    t.wait_s = to_s(duration - model);
  }
  m_split[r].add(t);
  auto& site = m_sites[site_of(main)];
  ++site.calls;
  site.time.add(t);
}

Prediction PredictionTally::finish(std::int64_t start_ns,
                                   const std::vector<std::int64_t>& rank_end_ns,
                                   const PredictionInput& input, std::uint64_t events,
                                   std::uint64_t unresolved) {
  Prediction out;
  out.machine = input.machine.name;
  out.cpu_scale = input.cpu_scale;
  out.events = events;
  out.unresolved = unresolved;
  for (std::size_t r = 0; r < m_trace.ranks.size(); ++r) {
    const auto& rank = m_trace.ranks[r];
    RankPrediction p;
    p.time = m_split[r];
    if (!rank.records.empty()) {
      p.wall_s = to_s(rank_end_ns[r] - start_ns);
      p.measured_wall_s = to_s(rank.synced.back() - start_ns);
    }
    out.wall_s = std::max(out.wall_s, p.wall_s);
    out.measured_wall_s = std::max(out.measured_wall_s, p.measured_wall_s);
    out.total.add(p.time);
    out.ranks.push_back(p);
  }
  out.sites = std::move(m_sites);
  std::stable_sort(out.sites.begin(), out.sites.end(),
                   [](const SitePrediction& a, const SitePrediction& b) {
                     return a.time.mpi_s() > b.time.mpi_s();
                   });
  return out;
}

}  // namespace mpidle::analysis
