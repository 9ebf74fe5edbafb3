#pragma once
// What-if prediction on SimGrid (docs/prediction.md, "The engine"): the run's trace
// replayed by one s4u actor per rank on a platform built from the machine model,
// with SimGrid's flow-level network model (max-min sharing of links by concurrent
// transfers, shared or split-duplex links, per-size latency and bandwidth factors
// from the probe's curves). The same Prediction as mpidle's own replay. Pure C++,
// no MPI.

#include <stdexcept>

#include "prediction.hpp"

namespace mpidle::analysis {

class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether this build has SimGrid.
bool simgrid_available();

// SimGrid's version, e.g. "3.32" (empty without it).
std::string simgrid_version();

// Runs the simulation in a child process (SimGrid keeps one engine per process, and
// a failure there must not take the command with it). Throws EngineError when SimGrid
// is not built in, the trace deadlocks the replay (an inconsistent trace) or the
// simulation fails.
Prediction predict_simgrid(const model::Trace& trace, const sync::TraceMatching& matching,
                           const PredictionInput& input);

// The simulation in this process: at most once per process (tests, the child above).
Prediction simulate_on_simgrid(const model::Trace& trace, const sync::TraceMatching& matching,
                               const PredictionInput& input);

}  // namespace mpidle::analysis
