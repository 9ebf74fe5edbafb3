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

void merge_tables(ProfileTables& into, const ProfileTables& from) {
  std::map<std::string, std::uint32_t> function_index;
  for (std::uint32_t i = 0; i < into.functions.size(); ++i) function_index[into.functions[i]] = i;
  std::vector<std::uint32_t> function_map(from.functions.size());
  for (std::size_t i = 0; i < from.functions.size(); ++i) {
    auto [it, added] = function_index.try_emplace(
        from.functions[i], static_cast<std::uint32_t>(into.functions.size()));
    if (added) into.functions.push_back(from.functions[i]);
    function_map[i] = it->second;
  }

  std::map<CallsiteIdentity, std::uint32_t> callsite_index;
  for (std::uint32_t i = 0; i < into.callsites.size(); ++i) {
    callsite_index.emplace(identity_of(into.callsites[i]), i);
  }
  std::vector<std::uint32_t> callsite_map(from.callsites.size());
  for (std::size_t i = 0; i < from.callsites.size(); ++i) {
    auto [it, added] = callsite_index.try_emplace(
        identity_of(from.callsites[i]), static_cast<std::uint32_t>(into.callsites.size()));
    if (added) into.callsites.push_back(from.callsites[i]);
    callsite_map[i] = it->second;
  }

  for (const auto& rank : from.ranks) {
    RankData copy = rank;
    for (auto& e : copy.entries) {
      e.callsite = callsite_map.at(e.callsite);
      e.function = function_map.at(e.function);
    }
    for (auto& c : copy.first_calls) c.function = function_map.at(c.function);
    into.ranks.push_back(std::move(copy));
  }
  std::stable_sort(into.ranks.begin(), into.ranks.end(),
                   [](const RankData& a, const RankData& b) { return a.rank < b.rank; });
}

}  // namespace mpidle::model
