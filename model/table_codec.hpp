#pragma once
// Serialization of ProfileTables for the finalize-time tree reduction.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "profile_tables.hpp"

namespace mpidle::model {

std::vector<std::byte> encode_tables(const ProfileTables& tables);

// Empty when the bytes are not a complete, well-formed encoding.
std::optional<ProfileTables> decode_tables(std::span<const std::byte> bytes);

}  // namespace mpidle::model
