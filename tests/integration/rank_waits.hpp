#pragma once
// analysis_ranks.bin beside a run's analysis.json, for the tests that compare it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/analysis_output.hpp"
#include "process.hpp"

namespace mpidle::test {

// The side file's rows as (function, location, rank, seconds per pattern), sorted;
// REQUIREs that it decodes and that analysis.json counts its rows.
inline std::vector<std::tuple<std::string, std::string, std::int32_t, std::vector<double>>>
rank_waits_of(const std::string& run_dir) {
  const auto doc = nlohmann::json::parse(read_text(run_dir + "/analysis.json"));
  const std::string text = read_text(run_dir + "/" + analysis::kAnalysisRanksFileName);
  const auto rows = analysis::decode_rank_waits(
      std::span(reinterpret_cast<const std::byte*>(text.data()), text.size()),
      doc.at("callsites").size());
  REQUIRE(rows);
  CHECK(doc.at("rank_waits").at("rows") == rows->size());
  std::vector<std::tuple<std::string, std::string, std::int32_t, std::vector<double>>> out;
  for (const auto& r : *rows) {
    const auto& site = doc.at("callsites").at(r.callsite);
    out.emplace_back(site.at("function").get<std::string>(), site.at("location").get<std::string>(),
                     r.rank, std::vector<double>(r.seconds.begin(), r.seconds.end()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mpidle::test
