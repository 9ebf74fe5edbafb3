#pragma once
// Merging of per-rank tables: one step of the finalize tree reduction.

#include "profile_tables.hpp"

namespace mpidle::model {

// Appends the ranks of `from` to `into`, unifying function names and callsites
// (callsites are equal when all their frames have equal module and offset).
// Keeps `into.ranks` sorted by rank.
void merge_tables(ProfileTables& into, const ProfileTables& from);

}  // namespace mpidle::model
