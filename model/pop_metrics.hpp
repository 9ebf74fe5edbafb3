#pragma once
// The POP Centre of Excellence's efficiency metrics of a parallel run (docs/
// profile-format.md, "efficiency", has the definitions and their sources), from
// each rank's useful time (outside MPI) and the run's elapsed time. Trace mode adds
// the split of communication efficiency by a replay on an ideal network. No MPI.

#include <optional>
#include <vector>

namespace mpidle::model {

struct PopEfficiency {
  double runtime_s = 0;      // the longest rank's wall time
  double useful_mean_s = 0;  // mean over ranks of time outside MPI
  double useful_max_s = 0;   // the most useful time of any rank
  double load_balance = 0;   // useful_mean / useful_max
  double communication = 0;  // useful_max / runtime
  double parallel = 0;       // load_balance × communication = useful_mean / runtime
  // Trace mode, from a replay with no latency and infinite bandwidth:
  // serialization = useful_max / ideal runtime, transfer = ideal runtime / runtime.
  std::optional<double> ideal_runtime_s, serialization, transfer;
};

// `useful_s[r]` and `wall_s[r]` per rank; metrics of a run without time are 0.
PopEfficiency pop_efficiency(const std::vector<double>& useful_s,
                             const std::vector<double>& wall_s);
// From the run's three aggregates (what a tree reduction keeps).
PopEfficiency pop_efficiency(double runtime_s, double useful_mean_s, double useful_max_s);

// From ranks' rows with `wall_s` and `mpi_s` (a rank's summary in the finalize, its
// row of profile.json): useful time is wall − MPI.
template <typename Ranks>
PopEfficiency pop_efficiency_of(const Ranks& ranks) {
  std::vector<double> useful, wall;
  for (const auto& r : ranks) {
    useful.push_back(r.wall_s - r.mpi_s);
    wall.push_back(r.wall_s);
  }
  return pop_efficiency(useful, wall);
}

// Adds the ideal-network split; `ideal_runtime_s` is clamped to [useful_max, runtime]
// (no network makes a run slower than it was, nor faster than its busiest rank).
void add_ideal_network(PopEfficiency& e, double ideal_runtime_s);

}  // namespace mpidle::model
