#pragma once
// The HTML report's timeline of a trace run's top loop: the top-level loop of the
// loop summary with the most time per rank, a few of its middle iterations drawn
// from the trace's own (synchronized) times, one lane per rank for up to 16
// ranks. The summary says where the loop begins: its symbols are two per call
// (burst, call), in the order of the rank's records (docs/summary-format.md).

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "model/profile_reader.hpp"

namespace mpidle::report {

inline constexpr std::size_t kMaxTimelineLanes = 16;
// Calls the timeline's lanes hold at most (the lanes' records are read whole, about
// 64 bytes a record): lanes past it are left out, so that `mpidle report --html`
// stays within about 1 GB on any trace.
inline constexpr std::uint64_t kMaxTimelineCalls = 8'000'000;

// <section id="timeline">, or a section that says why there is none; "" for a
// profile-mode run. `summary` is profile.json's "summary" section.
std::string loop_timeline_section(const model::Profile& profile,
                                  const std::filesystem::path& run_directory,
                                  const nlohmann::json& summary);

}  // namespace mpidle::report
