#pragma once
// How far to trust the profile's wait estimates: per callsite, the robust estimate
// and the minimum method's (local and global minimum, from profile.json) next to
// the exact waiting the trace shows, their difference and the likely reason where
// they differ.

#include <string>
#include <vector>

#include "model/profile_reader.hpp"
#include "wait_states.hpp"

namespace mpidle::analysis {

struct AccuracyRow {
  std::string function, location;
  double robust_s = 0, minimum_local_s = 0, minimum_global_s = 0, trace_s = 0;
  double calibrated_s = 0;                  // the calibrated estimate (docs/calibration.md)
  Pattern dominant = Pattern::late_sender;  // the trace's largest pattern there
  std::string reason;                       // "agree", or why they differ
};

struct Accuracy {
  std::vector<AccuracyRow> rows;  // by |local − trace|, largest first
  double robust_s = 0, minimum_local_s = 0, minimum_global_s = 0, trace_s = 0;
  double calibrated_s = 0;
  // Rows grouped by their dominant pattern.
  PatternSeconds trace_by_pattern{}, local_by_pattern{}, robust_by_pattern{};
  PatternSeconds calibrated_by_pattern{};
};

// 1 − |estimate − exact| / max(estimate, exact): 1 is perfect agreement.
double agreement(double estimate, double exact);

Accuracy compare_with_minimum_method(const model::Profile& profile, const model::Trace& trace,
                                     const WaitStates& waits);

}  // namespace mpidle::analysis
