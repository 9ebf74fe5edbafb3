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

void merge_tables(ProfileTables& into, const ProfileTables& from) {
  const IndexMaps maps =
      unify_tables(into.functions, into.callsites, from.functions, from.callsites);
  for (const auto& rank : from.ranks) {
    RankData copy = rank;
    for (auto& e : copy.entries) {
      e.callsite = maps.callsites.at(e.callsite);
      e.function = maps.functions.at(e.function);
    }
    for (auto& c : copy.first_calls) c.function = maps.functions.at(c.function);
    into.ranks.push_back(std::move(copy));
  }
  std::stable_sort(into.ranks.begin(), into.ranks.end(),
                   [](const RankData& a, const RankData& b) { return a.rank < b.rank; });
}

}  // namespace mpidle::model
