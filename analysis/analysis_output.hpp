#pragma once
// analysis.json (schema mpidle-analysis/2, docs/analysis-format.md), bounded in P:
// per callsite its totals and extremes over ranks; the per-rank detail goes to the
// binary side file analysis_ranks.bin.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "accuracy.hpp"
#include "delay_analysis.hpp"
#include "wait_states.hpp"

namespace mpidle::analysis {

inline constexpr const char* kAnalysisSchema = "mpidle-analysis/2";
// Version 1 had every waiting rank of every callsite in the JSON (`by_rank`).
inline constexpr const char* kAnalysisSchemaV1 = "mpidle-analysis/1";
inline constexpr const char* kAnalysisFileName = "analysis.json";
inline constexpr const char* kAnalysisRanksFileName = "analysis_ranks.bin";
// The most waiting ranks named per callsite in analysis.json.
inline constexpr std::size_t kTopWaitingRanks = 5;

// One rank's waits at one callsite: `callsite` is its row in analysis.json's
// callsites[] (as written, by decreasing wait).
struct RankWaitRow {
  std::uint32_t callsite = 0;
  std::int32_t rank = 0;
  PatternSeconds seconds{};
};

struct AnalysisDocument {
  nlohmann::json json;
  std::vector<RankWaitRow> rank_waits;  // ranks with any waiting, by callsite row
};

AnalysisDocument analysis_json(const model::Trace& trace, const WaitStates& waits,
                               const Accuracy& accuracy);

// analysis_ranks.bin: "MPAR", version 1, the row count, then per row the callsite
// row (u32), the rank (i32) and seconds per pattern (7 × f64), little-endian.
std::vector<std::byte> encode_rank_waits(const std::vector<RankWaitRow>& rows);
// Null when the bytes are not such a file, or a row names a callsite past `callsites`.
std::optional<std::vector<RankWaitRow>> decode_rank_waits(std::span<const std::byte> bytes,
                                                          std::size_t callsites);

// Compares `waits` with the run's minimum-method estimates and writes
// dir/analysis.json and dir/analysis_ranks.bin; returns the JSON it wrote. `trace` needs its tables
// and its ranks' headers only. Throws std::runtime_error when the file cannot be written.
// `efficiency`, when given, is written as the "efficiency" section: POP's metrics
// with the ideal-network split; `delays`, as the "root_causes" section: why each
// callsite waited (docs/analysis-format.md).
nlohmann::json write_analysis(const std::filesystem::path& dir, const model::Profile& profile,
                              const model::Trace& trace, const WaitStates& waits,
                              const model::PopEfficiency* efficiency = nullptr,
                              const DelayAnalysis* delays = nullptr);

}  // namespace mpidle::analysis
