#include "sync_report.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "model/file_replace.hpp"
#include "model/json_fields.hpp"

namespace mpidle::sync {

nlohmann::json sync_section(const model::Trace& trace, const TraceSyncResult& result) {
  const ClcParams& params = result.params;
  nlohmann::json offsets = nlohmann::json::array();
  for (std::size_t i = 0; i < trace.ranks.size(); ++i) {
    const auto& r = trace.ranks[i];
    offsets.push_back({{"rank", r.rank},
                       {"init_offset_s", static_cast<double>(r.init.offset_ns) * 1e-9},
                       {"final_offset_s", static_cast<double>(r.final.offset_ns) * 1e-9},
                       {"drift", i < result.models.size() ? result.models[i].drift : 0.0},
                       {"rtt_s", static_cast<double>(r.init.rtt_ns) * 1e-9},
                       {"final_rtt_s", static_cast<double>(r.final.rtt_ns) * 1e-9},
                       {"span_s", static_cast<double>(r.final.at_ns - r.init.at_ns) * 1e-9}});
  }
  const auto& c = result.clc;
  std::uint64_t reference_clock = 0;
  for (const auto& r : trace.ranks) reference_clock += reads_reference_clock(r);
  nlohmann::json clock = {
      {"correction", params.raw_clocks ? "none" : "offsets"},
      {"reason", result.clock_reason},
      {"reference_clock_ranks", reference_clock},
      {"violations_with_offsets", result.violations_with_offsets},
      {"min_latency_measured_s", static_cast<double>(result.measured_min_latency_ns) * 1e-9},
      {"latency_reason", result.latency_reason}};
  return {{"offsets", std::move(offsets)},
          {"clock", std::move(clock)},
          {"min_latency_s", static_cast<double>(params.min_latency_ns) * 1e-9},
          {"gamma", params.gamma},
          {"violations_raw", result.violations_raw},
          {"violations_before", c.violations_before},
          {"violations_after", c.violations_after},
          {"events_moved", c.events_moved},
          {"max_shift_s", static_cast<double>(c.max_shift_ns) * 1e-9},
          {"mean_shift_s", c.mean_shift_ns * 1e-9},
          {"interval_change_mean", c.interval_change_mean_ns * 1e-9},
          {"unresolved", c.unresolved},
          {"messages", result.messages},
          {"unmatched_sends", result.unmatched_sends},
          {"unmatched_receives", result.unmatched_receives},
          {"cancelled", result.cancelled}};
}

void rewrite_sync_section(const std::filesystem::path& profile_json, nlohmann::json section) {
  nlohmann::json doc;
  {
    std::ifstream in(profile_json);
    if (!in) throw std::runtime_error("cannot read " + profile_json.string());
    doc = model::read_json(in);
    if (doc.is_discarded()) throw std::runtime_error(profile_json.string() + " is not JSON");
  }
  doc["sync"] = std::move(section);
  std::string error;
  if (!model::replace_file(profile_json, doc.dump(1) + '\n', error)) {
    throw std::runtime_error("cannot write " + profile_json.string() + " (" + error + ")");
  }
}

std::string sync_outcome(const TraceSyncResult& result) {
  char line[320];
  std::snprintf(line, sizeof line,
                "violations %llu raw, %llu after interpolation, %llu after the controlled logical "
                "clock; %llu events moved, max shift %.3g s",
                static_cast<unsigned long long>(result.violations_raw),
                static_cast<unsigned long long>(result.clc.violations_before),
                static_cast<unsigned long long>(result.clc.violations_after),
                static_cast<unsigned long long>(result.clc.events_moved),
                static_cast<double>(result.clc.max_shift_ns) * 1e-9);
  return line;
}

std::string unmatched_warning(const TraceSyncResult& result) {
  if (result.unmatched_sends + result.unmatched_receives == 0) return "";
  return std::to_string(result.unmatched_sends) + " sends and " +
         std::to_string(result.unmatched_receives) +
         " receives found no partner; messages after them may be paired wrongly";
}

std::vector<std::uint64_t> events_by_rank(const model::Trace& trace) {
  std::vector<std::uint64_t> out;
  for (const auto& r : trace.ranks) {
    std::uint64_t n = 0;
    for (const auto& rec : r.records) n += rec.extra == 0;
    out.push_back(n);
  }
  return out;
}

}  // namespace mpidle::sync
