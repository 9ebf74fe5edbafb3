#include "region_totals.hpp"

#include <algorithm>
#include <map>

#include "sorted_merge.hpp"

namespace mpidle::model {

std::string parent_region(const std::string& path) {
  const auto at = path.rfind(kRegionSeparator);
  return at == std::string::npos ? std::string{} : path.substr(0, at);
}

int region_depth(const std::string& path) {
  if (path.empty()) return 0;
  return 1 + static_cast<int>(std::count(path.begin(), path.end(), kRegionSeparator));
}

std::vector<RegionTotals> rank_regions(const std::vector<std::string>& paths,
                                       const std::vector<double>& wall_s,
                                       const std::vector<std::uint64_t>& visits,
                                       const std::vector<RegionCall>& calls) {
  std::map<std::string, RegionTotals> by_path;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) continue;
    RegionTotals& r = by_path[paths[i]];
    r.path = paths[i];
    r.wall_sum_s = r.wall_max_s = i < wall_s.size() ? wall_s[i] : 0.0;
    r.visits = i < visits.size() ? visits[i] : 0;
    r.ranks = r.visits > 0 ? 1 : 0;
  }
  for (const RegionCall& c : calls) {
    if (c.region >= paths.size()) continue;
    // Inclusive: the call's own region and each enclosing one.
    for (std::string path = paths[c.region]; !path.empty(); path = parent_region(path)) {
      auto it = by_path.find(path);
      if (it == by_path.end()) break;  // an enclosing region without a row: none above
      RegionTotals& r = it->second;
      r.calls += c.visits;
      r.mpi_s += c.time_s;
      r.add(c.wait);
    }
  }
  std::vector<RegionTotals> out;
  out.reserve(by_path.size());
  for (auto& [path, r] : by_path) {
    // The clock reads at the region's edges and the calls' own differ by a few
    // ticks: useful time is never negative.
    r.useful_sum_s = r.useful_max_s = std::max(0.0, r.wall_sum_s - r.mpi_s);
    out.push_back(std::move(r));
  }
  return out;
}

void merge_regions(std::vector<RegionTotals>& into, const std::vector<RegionTotals>& from) {
  merge_sorted(
      into, from, [](const RegionTotals& a, const RegionTotals& b) { return a.path < b.path; },
      [](RegionTotals& a, const RegionTotals& b) {
        a.add(b);
        a.visits += b.visits;
        a.ranks += b.ranks;
        a.calls += b.calls;
        a.mpi_s += b.mpi_s;
        a.wall_sum_s += b.wall_sum_s;
        a.wall_max_s = std::max(a.wall_max_s, b.wall_max_s);
        a.useful_sum_s += b.useful_sum_s;
        a.useful_max_s = std::max(a.useful_max_s, b.useful_max_s);
      });
}

PopEfficiency region_efficiency(const RegionTotals& region, std::uint64_t run_ranks) {
  const auto ranks = std::max<std::uint64_t>({run_ranks, region.ranks, 1});
  return pop_efficiency(region.wall_max_s, region.useful_sum_s / static_cast<double>(ranks),
                        region.useful_max_s);
}

}  // namespace mpidle::model
