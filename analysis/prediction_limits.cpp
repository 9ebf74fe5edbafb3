#include "prediction_limits.hpp"

#include "model/function_catalog.hpp"
#include "prediction.hpp"

namespace mpidle::analysis {

std::vector<std::string> model_limits(const model::Trace& trace,
                                      const sync::TraceMatching& matching,
                                      const model::MachineModel& target) {
  std::vector<std::string> limits;
  std::vector<bool> exchange(trace.functions.size()), polls(trace.functions.size());
  for (std::size_t f = 0; f < trace.functions.size(); ++f) {
    const model::FunctionInfo* info = model::find_function(trace.functions[f]);
    exchange[f] = info != nullptr && info->kind == "sendrecv";
    polls[f] = model::is_poll(trace.functions[f]);
  }
  // Exchanges both ways at once.
  std::uint64_t exchanges = 0;
  for (const auto& r : trace.ranks) {
    for (const auto& rec : r.records) exchanges += rec.extra == 0 && exchange[rec.function];
  }
  const bool measured = target.messages && target.messages->exchange;
  std::uint64_t paired = 0;  // directions of exchanges with one partner both ways
  if (exchanges > 0 && measured) {
    for (const auto two_way : two_way_exchanges(trace, matching)) paired += two_way;
  }
  if (exchanges > 0 && !measured && target.p2p.bandwidth_bytes_per_s() > 0) {
    limits.push_back(std::to_string(exchanges) +
                     " exchanges both ways at once (Sendrecv), and the target's model has no "
                     "measured exchange (an earlier probe): each direction is given "
                     "the link's whole one-way rate and one latency; over TCP the other "
                     "direction's acknowledgements share the rate (5-8% slower at 200 Mbit/s "
                     "here), and both ends' per-message work at once made a small exchange "
                     "take 1.3-1.6 one-way latencies. Probe the target again");
  } else if (exchanges > paired && measured) {
    limits.push_back(std::to_string(exchanges - paired) +
                     " Sendrecv calls send to another rank than the one they receive from (a "
                     "ring or a shift): the probe measured exchanges between two ranks, so "
                     "each direction of these is given the one-way time");
  }
  // Transfers the target holds until both sides are in MPI (the replay's protocol
  // for the message's bytes): those completed by polling, and blocking sends.
  if (target.messages) {
    std::uint64_t polled = 0, large_sends = 0;
    for (const auto& m : matching.messages) {
      const model::ProtocolSegment& segment =
          target.messages->protocol_for(message_bytes(trace, m));
      if (!segment.rendezvous || segment.progresses) continue;
      const auto& done = trace.ranks[m.receive.rank].records[m.receive.record];
      const auto& sent = trace.ranks[m.send.rank].records[m.send.record];
      polled += polls[done.function];
      large_sends += sent.role == model::TraceRole::send;
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
