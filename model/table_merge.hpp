#pragma once
// Merging of per-rank tables: one step of the finalize tree reduction.

#include <cstdint>
#include <string>
#include <vector>

#include "profile_tables.hpp"

namespace mpidle::model {

// Where each function and callsite of another table landed in this one.
struct IndexMaps {
  std::vector<std::uint32_t> functions;
  std::vector<std::uint32_t> callsites;
};

// Adds the functions and callsites of `from_*` that `functions`/`callsites` do not
// have yet; callsites are equal when all their frames have equal module and offset.
IndexMaps unify_tables(std::vector<std::string>& functions, std::vector<Callsite>& callsites,
                       const std::vector<std::string>& from_functions,
                       const std::vector<Callsite>& from_callsites);

// Adds the region paths of `from_regions` that `regions` does not have yet; where
// each landed (empty when `from_regions` is).
std::vector<std::uint32_t> unify_regions(std::vector<std::string>& regions,
                                         const std::vector<std::string>& from_regions);

// Appends the ranks of `from` to `into`, unifying function names and callsites.
// Keeps `into.ranks` sorted by rank.
void merge_tables(ProfileTables& into, const ProfileTables& from);

}  // namespace mpidle::model
