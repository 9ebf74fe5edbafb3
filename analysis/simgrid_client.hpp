#pragma once
// The SimGrid engine from a process that does not link SimGrid (docs/prediction.md,
// "The engine"): the `mpidle` command runs `mpidle-simgrid`, the engine's own
// program, beside it. SimGrid's library defines SMPI's MPI functions, and a command
// that carries them looks like a program of another MPI to a preloaded libmpidle.
// Pure C++, no MPI, no SimGrid.

#include <sys/types.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "prediction.hpp"
#include "simgrid_prediction.hpp"

namespace mpidle::analysis {

// A prediction's numbers as bytes (one machine, one build), and back; decode takes
// the machine's name and CPU scale from the input. Throws EngineError for a cut or
// empty answer.
std::string encode_prediction(const Prediction& p);
Prediction decode_prediction(const std::string& bytes, const PredictionInput& input);

// The request mpidle-simgrid reads: the trace file and everything of the input.
nlohmann::json simgrid_request(const std::filesystem::path& trace_file,
                               const PredictionInput& input);
PredictionInput input_of_request(const nlohmann::json& request, std::filesystem::path* trace_file);

// Runs `helper` (mpidle-simgrid) on the trace file with the input: its prediction.
// Throws EngineError when it fails, with the last line it wrote.
Prediction predict_with_helper(const std::filesystem::path& helper,
                               const std::filesystem::path& trace_file,
                               const PredictionInput& input);

// The answer of a process that writes a prediction's bytes to the pipe `out` and its
// reasons to `said` (mpidle-simgrid, or a forked simulation): reads it, waits for the
// process, and closes `out` and `said`. Throws EngineError with the process' last
// line where it failed.
Prediction collect_prediction(int out, pid_t pid, std::FILE* said, const PredictionInput& input);

}  // namespace mpidle::analysis
