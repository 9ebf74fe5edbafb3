#pragma once
// What the finalize tree carries for wait-state analysis: each subtree's merged
// wait states (up), and the run's classes of blocking sends (up, then down). Decoding
// never trusts its input.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "rank_waits.hpp"

namespace mpidle::analysis {

std::vector<std::byte> encode_wait_states(const WaitStates& waits);
std::optional<WaitStates> decode_wait_states(std::span<const std::byte> bytes);

std::vector<std::byte> encode_send_classes(const SendClasses& classes);
std::optional<SendClasses> decode_send_classes(std::span<const std::byte> bytes);

}  // namespace mpidle::analysis
