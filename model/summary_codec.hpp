#pragma once
// Serialization of what the finalize tree sends: global minima (up, then down the
// tree) and profile summaries (up). Decoding never trusts its input.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "profile_summary.hpp"

namespace mpidle::model {

std::vector<std::byte> encode_minima(const GlobalMinima& minima);
std::optional<GlobalMinima> decode_minima(std::span<const std::byte> bytes);

std::vector<std::byte> encode_summary(const ProfileSummary& summary);
// Empty when the bytes are not a complete, well-formed encoding whose indices all
// point into its own tables.
std::optional<ProfileSummary> decode_summary(std::span<const std::byte> bytes);

}  // namespace mpidle::model
