#pragma once
// Adds up a replayed run: each call's predicted time split into compute before it,
// the model's part (latency, bandwidth) and waiting, per rank and per (function,
// callsite). Both prediction engines report through it. Pure C++, no MPI.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "prediction.hpp"

namespace mpidle::analysis {

class PredictionTally {
 public:
  explicit PredictionTally(const model::Trace& trace);

  // One call of rank `r` (its first record `main`): the burst before it, its
  // predicted enter and exit, and the model's part of it (`work_ns`, of which
  // `work_latency_ns` latency). A local call the model does not cover is other MPI.
  void call(std::uint32_t r, const model::TraceRecord& main, std::int64_t burst_ns,
            std::int64_t enter_ns, std::int64_t exit_ns, std::int64_t work_ns,
            std::int64_t work_latency_ns, bool local_call);

  // The prediction, from the run's start and each rank's predicted end.
  Prediction finish(std::int64_t start_ns, const std::vector<std::int64_t>& rank_end_ns,
                    const PredictionInput& input, std::uint64_t events, std::uint64_t unresolved);

 private:
  std::size_t site_of(const model::TraceRecord& main);

  const model::Trace& m_trace;
  std::vector<TimeSplit> m_split;
  std::vector<SitePrediction> m_sites;
  std::vector<std::size_t> m_site_table;
  std::unordered_map<std::uint64_t, std::size_t> m_site_index;
};

}  // namespace mpidle::analysis
