// A build without SimGrid (libsimgrid-dev): predictions replay on mpidle's own engine.
#include "simgrid_prediction.hpp"

namespace mpidle::analysis {

bool simgrid_available() {
  return false;
}

std::string simgrid_version() {
  return {};
}

Prediction predict_simgrid(const model::Trace&, const sync::TraceMatching&,
                           const PredictionInput&) {
  throw EngineError("mpidle was built without SimGrid (Debian's libsimgrid-dev)");
}

Prediction simulate_on_simgrid(const model::Trace& trace, const sync::TraceMatching& matching,
                               const PredictionInput& input) {
  return predict_simgrid(trace, matching, input);
}

}  // namespace mpidle::analysis
