#include "prediction_limits.hpp"

#include "model/function_catalog.hpp"

namespace mpidle::analysis {
namespace {

using model::TraceRole;

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

std::vector<std::string> model_limits(const model::Trace& trace,
                                      const sync::TraceMatching& matching,
                                      const model::MachineModel& target) {
  std::vector<std::string> limits;
  std::vector<bool> exchange(trace.functions.size()), polls(trace.functions.size());
  for (std::size_t f = 0; f < trace.functions.size(); ++f) {
    const model::FunctionInfo* info = model::find_function(trace.functions[f]);
    exchange[f] = info != nullptr && info->kind == "sendrecv";
    polls[f] = starts_with(trace.functions[f], "MPI_Test");
  }
  // Exchanges both ways at once.
  std::uint64_t exchanges = 0;
  for (const auto& r : trace.ranks) {
    for (const auto& rec : r.records) exchanges += rec.extra == 0 && exchange[rec.function];
  }
  if (exchanges > 0 && target.p2p.bandwidth_bytes_per_s() > 0) {
    limits.push_back(std::to_string(exchanges) +
                     " exchanges both ways at once (Sendrecv): each direction is given the "
                     "link's whole one-way rate; over TCP the other direction's "
                     "acknowledgements share it (5-8% slower at 200 Mbit/s here)");
  }
  // Held transfers that the program completes by polling.
  bool held = false;
  std::uint64_t eager_limit = target.eager_limit_bytes;
  if (target.messages) {
    for (const auto& s : target.messages->protocols) {
      if (s.rendezvous && !s.progresses) {
        held = true;
        eager_limit = s.from_bytes > 0 ? s.from_bytes - 1 : 0;
        break;
      }
    }
  }
  if (held) {
    std::uint64_t polled = 0, large_sends = 0;
    for (const auto& m : matching.messages) {
      const auto& done = trace.ranks[m.receive.rank].records[m.receive.record];
      const auto& sent = trace.ranks[m.send.rank].records[m.send.record];
      polled += polls[done.function] && sent.bytes > eager_limit;
      large_sends += sent.role == TraceRole::send && sent.bytes > eager_limit;
    }
    if (polled > 0) {
      limits.push_back(std::to_string(polled) +
                       " rendezvous messages completed by polling (MPI_Test*), on a protocol "
                       "that moves only while both sides are in MPI: the model lets them move, "
                       "as it cannot know when the program polls");
    }
    if (large_sends > 0) {
      limits.push_back(std::to_string(large_sends) +
                       " blocking sends above the eager limit are held until their transfer "
                       "ends; an MPI whose TCP send returns once its data is in the socket's "
                       "buffer (Open MPI) moves that time to the next wait: the wall time holds, "
                       "its split between the calls does not");
    }
  }
  return limits;
}

}  // namespace mpidle::analysis
