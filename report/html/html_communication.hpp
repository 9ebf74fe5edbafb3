#pragma once
// The HTML report's communication sections, from what every profile records per
// rank (its own minima, keyed by function, size class and peer):
// - a rank × peer matrix of point-to-point bytes and wait, binned past 64 ranks;
// - a message-size histogram per function (calls per size class, all ranks).

#include <string>

#include "model/profile_reader.hpp"

namespace mpidle::report {

// <section id="matrix">; says why when the profile has no per-peer figures.
std::string communication_matrix_section(const model::Profile& profile);
// <section id="sizes">; empty string when no function moved data.
std::string message_size_section(const model::Profile& profile);

}  // namespace mpidle::report
