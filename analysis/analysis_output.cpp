#include "analysis_output.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "analysis/delay_output.hpp"
#include "model/byte_stream.hpp"
#include "model/json_fields.hpp"
#include "model/run_info.hpp"

namespace mpidle::analysis {
namespace {

using nlohmann::json;

constexpr std::uint32_t kRanksMagic = 0x5241504d;  // "MPAR"
constexpr std::uint32_t kRanksVersion = 1;
constexpr std::size_t kRowBytes = 4 + 4 + kPatterns * 8;

json patterns_json(const PatternSeconds& s) {
  json out = json::object();
  for (std::size_t k = 0; k < kPatterns; ++k) out[pattern_key(static_cast<Pattern>(k))] = s[k];
  return out;
}

}  // namespace

AnalysisDocument analysis_json(const model::Trace& trace, const WaitStates& waits,
                               const Accuracy& accuracy) {
  // Callsites by decreasing wait, as written; their ranks' rows follow that order.
  std::vector<std::pair<double, const SiteWaits*>> order;
  for (const auto& s : waits.sites) {
    double sum = 0;
    for (double v : s.total) sum += v;
    order.emplace_back(sum, &s);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  AnalysisDocument out;
  json sites = json::array();
  for (std::uint32_t row = 0; row < order.size(); ++row) {
    const auto& [sum, site] = order[row];
    const SiteWaits& s = *site;
    const auto& frames = s.callsite < trace.callsites.size() ? trace.callsites[s.callsite].frames
                                                             : std::vector<model::Frame>{};
    // Totals and extremes over the waiting ranks: bounded whatever P is.
    std::vector<std::pair<double, std::int32_t>> waiting;
    for (const auto& [position, seconds] : s.by_rank) {
      double rank_sum = 0;
      for (double v : seconds) rank_sum += v;
      if (rank_sum == 0) continue;
      const std::int32_t rank = trace.ranks.at(position).rank;
      waiting.emplace_back(rank_sum, rank);
      out.rank_waits.push_back(RankWaitRow{row, rank, seconds});
    }
    const std::size_t top = std::min(waiting.size(), kTopWaitingRanks);
    std::partial_sort(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(top),
                      waiting.end(), [](const auto& a, const auto& b) {
                        return a.first > b.first || (a.first == b.first && a.second < b.second);
                      });
    json top_rows = json::array();
    for (std::size_t i = 0; i < top; ++i) {
      top_rows.push_back({{"rank", waiting[i].second}, {"wait_s", waiting[i].first}});
    }
    double waited = 0;
    for (const auto& w : waiting) waited += w.first;
    json ranks = {{"waiting", waiting.size()},
                  {"mean_s", waiting.empty() ? 0.0 : waited / static_cast<double>(waiting.size())},
                  {"max_s", waiting.empty() ? 0.0 : waiting.front().first},
                  {"max_rank", waiting.empty() ? -1 : waiting.front().second},
                  {"top", std::move(top_rows)}};
    sites.push_back({{"function", trace.functions.at(s.function)},
                     {"location", model::innermost_location(frames)},
                     {"frames", model::frames_json(model::Callsite{frames, {}})},
                     {"wait_s", sum},
                     {"patterns", patterns_json(s.total)},
                     {"ranks", std::move(ranks)}});
  }
  json rows = json::array();
  for (const auto& r : accuracy.rows) {
    rows.push_back({{"function", r.function},
                    {"location", r.location},
                    {"robust_s", r.robust_s},
                    {"calibrated_s", r.calibrated_s},
                    {"minimum_local_s", r.minimum_local_s},
                    {"minimum_global_s", r.minimum_global_s},
                    {"trace_s", r.trace_s},
                    {"difference_s", r.minimum_local_s - r.trace_s},
                    {"pattern", pattern_key(r.dominant)},
                    {"reason", r.reason}});
  }
  json per_pattern = json::object();
  for (std::size_t k = 0; k < kPatterns; ++k) {
    if (accuracy.trace_by_pattern[k] == 0) continue;
    per_pattern[pattern_key(static_cast<Pattern>(k))] = {
        {"trace_s", accuracy.trace_by_pattern[k]},
        {"minimum_local_s", accuracy.local_by_pattern[k]},
        {"agreement", agreement(accuracy.local_by_pattern[k], accuracy.trace_by_pattern[k])},
        {"robust_s", accuracy.robust_by_pattern[k]},
        {"agreement_robust",
         agreement(accuracy.robust_by_pattern[k], accuracy.trace_by_pattern[k])},
        {"calibrated_s", accuracy.calibrated_by_pattern[k]},
        {"agreement_calibrated",
         agreement(accuracy.calibrated_by_pattern[k], accuracy.trace_by_pattern[k])}};
  }
  out.json = {{"schema", kAnalysisSchema},
              {"producer", model::mpidle_producer()},
              {"clock", "controlled logical clock"},
              {"events", waits.events},
              {"messages", waits.messages},
              {"collectives", waits.collectives},
              {"totals", patterns_json(waits.totals)},
              {"callsites", std::move(sites)},
              {"accuracy",
               {{"robust_s", accuracy.robust_s},
                {"agreement_robust", agreement(accuracy.robust_s, accuracy.trace_s)},
                {"calibrated_s", accuracy.calibrated_s},
                {"agreement_calibrated", agreement(accuracy.calibrated_s, accuracy.trace_s)},
                {"minimum_local_s", accuracy.minimum_local_s},
                {"minimum_global_s", accuracy.minimum_global_s},
                {"trace_s", accuracy.trace_s},
                {"agreement_local", agreement(accuracy.minimum_local_s, accuracy.trace_s)},
                {"agreement_global", agreement(accuracy.minimum_global_s, accuracy.trace_s)},
                {"by_pattern", std::move(per_pattern)},
                {"callsites", std::move(rows)}}},
              {"rank_waits", {{"file", kAnalysisRanksFileName}, {"rows", out.rank_waits.size()}}}};
  return out;
}

std::vector<std::byte> encode_rank_waits(const std::vector<RankWaitRow>& rows) {
  model::ByteWriter w;
  w.put(kRanksMagic);
  w.put(kRanksVersion);
  w.put<std::uint64_t>(rows.size());
  for (const auto& r : rows) {
    w.put(r.callsite);
    w.put(r.rank);
    for (double v : r.seconds) w.put(v);
  }
  return w.take();
}

std::optional<std::vector<RankWaitRow>> decode_rank_waits(std::span<const std::byte> bytes,
                                                          std::size_t callsites) {
  model::ByteReader r(bytes);
  std::uint32_t magic = 0, version = 0;
  std::uint64_t n = 0;
  if (!r.get(magic) || magic != kRanksMagic || !r.get(version) || version != kRanksVersion ||
      !r.get(n) || !r.can_hold(n, kRowBytes)) {
    return std::nullopt;
  }
  std::vector<RankWaitRow> rows(n);
  for (auto& row : rows) {
    if (!r.get(row.callsite) || !r.get(row.rank) || row.callsite >= callsites || row.rank < 0) {
      return std::nullopt;
    }
    for (double& v : row.seconds) {
      if (!r.get(v) || !(v >= 0)) return std::nullopt;
    }
  }
  if (!r.at_end()) return std::nullopt;
  return rows;
}

json write_analysis(const std::filesystem::path& dir, const model::Profile& profile,
                    const model::Trace& trace, const WaitStates& waits,
                    const model::PopEfficiency* efficiency, const DelayAnalysis* delays) {
  const auto accuracy = compare_with_minimum_method(profile, trace, waits);
  AnalysisDocument written = analysis_json(trace, waits, accuracy);
  json& doc = written.json;
  if (efficiency != nullptr && efficiency->ideal_runtime_s) {
    doc["efficiency"] = {{"runtime_s", efficiency->runtime_s},
                         {"useful_mean_s", efficiency->useful_mean_s},
                         {"useful_max_s", efficiency->useful_max_s},
                         {"load_balance", efficiency->load_balance},
                         {"communication", efficiency->communication},
                         {"parallel", efficiency->parallel},
                         {"ideal_runtime_s", *efficiency->ideal_runtime_s},
                         {"serialization", *efficiency->serialization},
                         {"transfer", *efficiency->transfer}};
  }
  if (delays != nullptr) doc["root_causes"] = root_causes_json(trace, *delays);
  // The side file first: analysis.json names it.
  const std::filesystem::path ranks_out = dir / kAnalysisRanksFileName;
  const auto bytes = encode_rank_waits(written.rank_waits);
  std::ofstream ranks_file(ranks_out, std::ios::binary | std::ios::trunc);
  ranks_file.write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
  if (!ranks_file) throw std::runtime_error("cannot write " + ranks_out.string());
  const std::filesystem::path out = dir / kAnalysisFileName;
  std::ofstream file(out);
  file << doc.dump(1) << '\n';
  if (!file) throw std::runtime_error("cannot write " + out.string());
  return doc;
}

}  // namespace mpidle::analysis
