#include "callsite_merge.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace mpidle::model {
namespace {

// A frame's identity after symbolization: its source location when it has one.
using FrameKey = std::tuple<std::string, std::string, std::int32_t, std::uint64_t>;

std::vector<FrameKey> key_of(const Callsite& c) {
  std::vector<FrameKey> key;
  key.reserve(c.frames.size());
  for (const auto& f : c.frames) {
    if (!f.file.empty() && f.line > 0) {
      key.emplace_back(f.function, f.file, f.line, 0);
    } else {
      key.emplace_back(f.module, std::string(), 0, f.offset);
    }
  }
  return key;
}

std::vector<RawFrame> raw_of(const Callsite& c) {
  std::vector<RawFrame> raw;
  for (const auto& f : c.frames) raw.push_back({f.module, f.offset});
  return raw;
}

}  // namespace

std::vector<std::uint32_t> merge_alike_callsites(std::vector<Callsite>& callsites) {
  std::map<std::vector<FrameKey>, std::uint32_t> first;
  std::vector<std::uint32_t> remap(callsites.size());
  std::vector<Callsite> kept;
  bool merged = false;
  for (std::uint32_t i = 0; i < callsites.size(); ++i) {
    auto [it, added] =
        first.try_emplace(key_of(callsites[i]), static_cast<std::uint32_t>(kept.size()));
    remap[i] = it->second;
    if (added) {
      kept.push_back(callsites[i]);  // a copy: nothing changes when nothing merges
      continue;
    }
    merged = true;
    Callsite& into = kept[it->second];
    if (into.merged_from.empty()) into.merged_from.push_back(raw_of(into));
    into.merged_from.push_back(raw_of(callsites[i]));
  }
  if (!merged) return {};
  callsites = std::move(kept);
  return remap;
}

bool merge_alike_callsites(ProfileSummary& summary) {
  const auto remap = merge_alike_callsites(summary.callsites);
  if (remap.empty()) return false;
  for (auto& rank : summary.ranks) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, CallsiteShare> combined;
    for (const auto& share : rank.shares) {
      const std::uint32_t callsite = remap.at(share.callsite);
      auto [it, added] = combined.try_emplace({callsite, share.function}, share);
      CallsiteShare& into = it->second;
      into.callsite = callsite;
      if (added) continue;
      into.visits += share.visits;
      into.time_s += share.time_s;
      into.add(share);
      into.bytes += share.bytes;
    }
    rank.shares.clear();
    for (auto& [key, share] : combined) rank.shares.push_back(share);
  }
  std::map<std::pair<std::uint32_t, std::uint32_t>, CallsiteDurations> durations;
  for (auto& d : summary.callsite_durations) {
    const std::uint32_t callsite = remap.at(d.callsite);
    CallsiteDurations& into = durations[{callsite, d.function}];
    into.callsite = callsite;
    into.function = d.function;
    merge_histograms(into.durations, d.durations);
  }
  summary.callsite_durations.clear();
  for (auto& [key, d] : durations) summary.callsite_durations.push_back(std::move(d));
  return true;
}

bool merge_alike_callsites(Trace& trace) {
  const auto remap = merge_alike_callsites(trace.callsites);
  if (remap.empty()) return false;
  for (auto& rank : trace.ranks) {
    for (auto& r : rank.records) {
      if (r.callsite < remap.size()) r.callsite = remap[r.callsite];
    }
  }
  return true;
}

}  // namespace mpidle::model
