#include "table_merge.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace mpidle::model {
namespace {

using CallsiteIdentity = std::vector<std::pair<std::string, std::uint64_t>>;

CallsiteIdentity identity_of(const Callsite& c) {
  CallsiteIdentity id;
  id.reserve(c.frames.size());
  for (const auto& f : c.frames) id.emplace_back(f.module, f.offset);
  return id;
}

}  // namespace

IndexMaps unify_tables(std::vector<std::string>& functions, std::vector<Callsite>& callsites,
                       const std::vector<std::string>& from_functions,
                       const std::vector<Callsite>& from_callsites) {
  IndexMaps maps;
  std::map<std::string, std::uint32_t> function_index;
  for (std::uint32_t i = 0; i < functions.size(); ++i) function_index[functions[i]] = i;
  for (const auto& name : from_functions) {
    auto [it, added] =
        function_index.try_emplace(name, static_cast<std::uint32_t>(functions.size()));
    if (added) functions.push_back(name);
    maps.functions.push_back(it->second);
  }
  std::map<CallsiteIdentity, std::uint32_t> callsite_index;
  for (std::uint32_t i = 0; i < callsites.size(); ++i) {
    callsite_index.emplace(identity_of(callsites[i]), i);
  }
  for (const auto& c : from_callsites) {
    auto [it, added] =
        callsite_index.try_emplace(identity_of(c), static_cast<std::uint32_t>(callsites.size()));
    if (added) callsites.push_back(c);
    maps.callsites.push_back(it->second);
  }
  return maps;
}

std::vector<std::uint32_t> unify_regions(std::vector<std::string>& regions,
                                         const std::vector<std::string>& from_regions) {
  std::vector<std::uint32_t> map;
  if (from_regions.empty()) return map;
  if (regions.empty()) regions.emplace_back();  // "": outside every region
  std::map<std::string, std::uint32_t> index;
  for (std::uint32_t i = 0; i < regions.size(); ++i) index.emplace(regions[i], i);
  for (const auto& path : from_regions) {
    auto [it, added] = index.try_emplace(path, static_cast<std::uint32_t>(regions.size()));
    if (added) regions.push_back(path);
    map.push_back(it->second);
  }
  return map;
}

void merge_tables(ProfileTables& into, const ProfileTables& from) {
  const IndexMaps maps =
      unify_tables(into.functions, into.callsites, from.functions, from.callsites);
  const std::vector<std::uint32_t> regions = unify_regions(into.regions, from.regions);
  for (const auto& rank : from.ranks) {
    RankData copy = rank;
    for (auto& e : copy.entries) {
      e.callsite = maps.callsites.at(e.callsite);
      e.function = maps.functions.at(e.function);
      e.region = regions.empty() ? 0 : regions.at(e.region);
    }
    if (!regions.empty()) {
      std::vector<double> wall(into.regions.size());
      std::vector<std::uint64_t> visits(into.regions.size());
      for (std::size_t i = 0; i < rank.region_wall_s.size() && i < regions.size(); ++i) {
        wall[regions[i]] = rank.region_wall_s[i];
      }
      for (std::size_t i = 0; i < rank.region_visits.size() && i < regions.size(); ++i) {
        visits[regions[i]] = rank.region_visits[i];
      }
      copy.region_wall_s = std::move(wall);
      copy.region_visits = std::move(visits);
    }
    for (auto& c : copy.first_calls) c.function = maps.functions.at(c.function);
    into.ranks.push_back(std::move(copy));
  }
  std::stable_sort(into.ranks.begin(), into.ranks.end(),
                   [](const RankData& a, const RankData& b) { return a.rank < b.rank; });
}

}  // namespace mpidle::model
