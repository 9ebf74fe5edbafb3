#include "table_merge.hpp"

#include <algorithm>
#include <map>
#include <type_traits>
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

// Appends the items of `from` that `into` lacks (equal when `key` is); where each
// item of `from` landed. Function names, callsites and region paths alike.
template <typename T, typename Key>
std::vector<std::uint32_t> unify(std::vector<T>& into, const std::vector<T>& from, Key key) {
  std::map<std::decay_t<std::invoke_result_t<Key, const T&>>, std::uint32_t> index;
  for (std::uint32_t i = 0; i < into.size(); ++i) index.emplace(key(into[i]), i);
  std::vector<std::uint32_t> landed;
  landed.reserve(from.size());
  for (const T& item : from) {
    auto [it, added] = index.try_emplace(key(item), static_cast<std::uint32_t>(into.size()));
    if (added) into.push_back(item);
    landed.push_back(it->second);
  }
  return landed;
}

const std::string& name_of(const std::string& name) {
  return name;
}

}  // namespace

IndexMaps unify_tables(std::vector<std::string>& functions, std::vector<Callsite>& callsites,
                       const std::vector<std::string>& from_functions,
                       const std::vector<Callsite>& from_callsites) {
  return {unify(functions, from_functions, name_of), unify(callsites, from_callsites, identity_of)};
}

std::vector<std::uint32_t> unify_regions(std::vector<std::string>& regions,
                                         const std::vector<std::string>& from_regions) {
  if (from_regions.empty()) return {};
  if (regions.empty()) regions.emplace_back();  // "": outside every region
  return unify(regions, from_regions, name_of);
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
      // The rank's per-region columns, moved to where their regions landed.
      auto renumber = [&](auto& column) {
        std::remove_reference_t<decltype(column)> moved(into.regions.size());
        for (std::size_t i = 0; i < column.size() && i < regions.size(); ++i) {
          moved[regions[i]] = column[i];
        }
        column = std::move(moved);
      };
      renumber(copy.region_wall_s);
      renumber(copy.region_visits);
    }
    for (auto& c : copy.first_calls) c.function = maps.functions.at(c.function);
    into.ranks.push_back(std::move(copy));
  }
  std::stable_sort(into.ranks.begin(), into.ranks.end(),
                   [](const RankData& a, const RankData& b) { return a.rank < b.rank; });
}

}  // namespace mpidle::model
