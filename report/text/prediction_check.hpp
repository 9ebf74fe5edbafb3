#pragma once
// `mpidle predict RUN --machine M --against TARGET_RUN`: a prediction for machine M
// put next to a run of the same program made on M (profiled or traced), so that a
// centre can check a vendor's figures after installation, and a developer can see
// where the model is wrong. Both sides are split alike: compute, MPI processing at
// latency-bound callsites (at most 16 KiB per call) and at bandwidth-bound ones,
// and waiting (the target's exact wait where it was traced, else its estimate);
// per rank and per callsite (matched by source location). The largest miss is the
// category with the largest |predicted − measured|, and the callsite in it that
// contributes most.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/profile_reader.hpp"
#include "report/runs/run_analysis.hpp"

namespace mpidle::report {

struct CheckedTime {
  double predicted = 0, measured = 0;
  double miss() const { return predicted - measured; }
};

struct CategoryCheck {
  std::string name;  // "compute", "latency-bound MPI", "bandwidth-bound MPI", "waiting"
  CheckedTime time;  // summed over the ranks
};

struct RankCheck {
  std::int64_t rank = 0;
  CheckedTime wall, compute, mpi, wait;
};

struct SiteCheck {
  std::string function, location;
  bool bandwidth_bound = false;
  CheckedTime time, wait;
};

struct PredictionCheck {
  std::string machine, target_run;
  std::vector<std::string> caveats;  // differences that do not refuse the check
  CheckedTime wall;                  // the slowest rank's
  std::vector<CategoryCheck> categories;
  std::vector<RankCheck> ranks;
  std::vector<SiteCheck> callsites;  // by |time miss|, largest first
  std::size_t largest_category = 0;  // into categories
  std::string largest_site;          // "MPI_Sendrecv ring.c:59 (main)", or "" when none
};

// Throws UsageError unless `target` is a run of the program `ours` ran, with as many
// ranks.
void require_comparable(const model::Profile& ours, const model::Profile& target,
                        const std::string& target_run);

// `predicted`: the prediction read as a profile (read_prediction_as_profile);
// `measured`: the target run's profile, `exact` its exact waits where traced.
// Throws UsageError for a run of another program or another rank count.
PredictionCheck check_prediction(const model::Profile& predicted, const model::Profile& measured,
                                 const ExactWaits* exact, const std::string& machine,
                                 const std::string& target_run);

std::string format_check(const PredictionCheck& c, std::size_t top);
nlohmann::json check_json(const PredictionCheck& c);

}  // namespace mpidle::report
