#pragma once
// What-if prediction: the run's synchronized trace replayed on a machine model
// (docs/prediction.md), in the spirit of Dimemas' abstract machine and BigSim's
// correction by replay. Every rank's calls happen in their recorded order; each
// compute burst takes its measured time × the CPU ratio; each message arrives at
// its send's predicted start + the target's transfer time for its size; each
// collective ends its model's cost after the members it depends on have entered;
// every call starts at the earliest time its own rank and its dependencies allow.
// Pure C++, no MPI.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/machine_model.hpp"
#include "model/pop_metrics.hpp"
#include "model/trace_file.hpp"
#include "sync/trace_matching.hpp"

namespace mpidle::analysis {

struct PredictionInput {
  model::MachineModel machine;
  double cpu_scale = 1;            // compute bursts take this × their measured time
  std::vector<std::string> hosts;  // by position in trace.ranks; empty: all on one node
};

// Where a rank's (or a callsite's) predicted time goes.
struct TimeSplit {
  double compute_s = 0;    // compute bursts between calls
  double latency_s = 0;    // the 0-byte part of transfers and collective costs
  double bandwidth_s = 0;  // the size-dependent rest of them
  double wait_s = 0;       // waiting for another rank (imbalance, late partners)
  double other_s = 0;      // calls the model does not cover, at their measured time
  double mpi_s() const { return latency_s + bandwidth_s + wait_s + other_s; }
  double total_s() const { return compute_s + mpi_s(); }
  void add(const TimeSplit& o);
};

struct RankPrediction {
  double wall_s = 0;           // from the run's start to this rank's last call's end
  double measured_wall_s = 0;  // the same on the synchronized trace
  TimeSplit time;
};

struct SitePrediction {
  std::uint32_t function = 0;  // index into the trace's functions
  std::uint32_t callsite = 0;  // index into the trace's callsites
  std::uint64_t calls = 0;
  TimeSplit time;  // compute_s: the bursts before this site's calls
};

struct Prediction {
  std::string machine;
  std::string engine;  // what replayed it: "simgrid 3.32" or "mpidle"
  double cpu_scale = 1;
  double wall_s = 0;           // the run's predicted wall time
  double measured_wall_s = 0;  // the same span on the synchronized trace
  std::vector<RankPrediction> ranks;
  std::vector<SitePrediction> sites;  // by predicted MPI time, largest first
  TimeSplit total;                    // over all ranks
  std::uint64_t events = 0;
  std::uint64_t unresolved = 0;  // dependencies a cycle made the replay ignore
  // The wall time replayed at the fast and the slow end of the probes' spread
  // (both 0 when the models carry none).
  double wall_low_s = 0, wall_high_s = 0;
  // The largest message the run sent beyond 4 x the largest size the model measured
  // (its time extrapolated from the last segment), 0 if none.
  std::uint64_t extrapolated_bytes = 0;
  // What the model cannot describe about this run on this target (prediction_limits).
  std::vector<std::string> limits;
  // "compute", "latency", "bandwidth", "waiting" or "other MPI": the largest part of `total`.
  std::string dominant() const;
};

// The bytes `message` carried: its send record's, or where it starts at a
// Sendrecv's call record (which counts both halves' bytes) those of the send half.
std::uint64_t message_bytes(const model::Trace& trace, const sync::MessageMatch& message);

// Per message of `matching`: 1 where it is one direction of an exchange both ways at
// once, a blocking receive in a call that also sends (MPI_Sendrecv) whose partner's
// call sends the other direction and receives this call's message. A model that
// measured such exchanges (MessageCosts::exchange) costs them so.
std::vector<std::uint8_t> two_way_exchanges(const model::Trace& trace,
                                            const sync::TraceMatching& matching);

using PredictionProgress = std::function<void(double done)>;

// Needs synchronized timestamps; throws model::TraceError without them.
Prediction predict(const model::Trace& trace, const sync::TraceMatching& matching,
                   const PredictionInput& input, const PredictionProgress& progress = {});

// POP's efficiencies with the ideal-network split (serialization, transfer): the run
// replayed on an ideal network, its wall time scaled onto `measured`'s runtime.
model::PopEfficiency with_ideal_network(const model::Trace& trace,
                                        const sync::TraceMatching& matching,
                                        model::PopEfficiency measured);
model::PopEfficiency with_ideal_network(const model::Trace& trace, model::PopEfficiency measured);

}  // namespace mpidle::analysis
