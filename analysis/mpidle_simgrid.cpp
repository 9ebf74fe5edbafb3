// mpidle-simgrid REQUEST: the SimGrid engine's own program (simgrid_client.hpp), run
// by `mpidle predict`. Reads the request (the trace file, the machine model, the CPU
// scale, the traced nodes), replays the trace on SimGrid and writes the prediction's
// bytes to stdout; one line on stderr and exit status 3 where it cannot.
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "model/trace_file.hpp"
#include "simgrid_client.hpp"
#include "simgrid_prediction.hpp"
#include "sync/trace_matching.hpp"

using namespace mpidle;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "mpidle-simgrid: usage: mpidle-simgrid REQUEST.json (mpidle predict runs it)\n");
    return 2;
  }
  try {
    std::ifstream file(argv[1]);
    const auto request = nlohmann::json::parse(file);
    std::filesystem::path trace_file;
    const analysis::PredictionInput input = analysis::input_of_request(request, &trace_file);
    const model::Trace trace = model::read_trace(trace_file);
    const auto matching = sync::match_trace(trace);
    const std::string answer =
        analysis::encode_prediction(analysis::simulate_on_simgrid(trace, matching, input));
    if (std::fwrite(answer.data(), 1, answer.size(), stdout) != answer.size() ||
        std::fflush(stdout) != 0) {
      std::fprintf(stderr, "mpidle-simgrid: cannot write the prediction\n");
      return 3;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpidle-simgrid: %s\n", e.what());
    return 3;
  }
}
