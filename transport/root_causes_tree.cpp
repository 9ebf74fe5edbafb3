#include "transport/root_causes_tree.hpp"

#include "transport/byte_tree.hpp"
#include "transport/sparse_exchange.hpp"

namespace mpidle::transport {
namespace {

constexpr int kCauseTag = 7330, kToldTag = 7334, kQueryTag = 7331, kAnswerTag = 7332,
              kHopTag = 7333;

}  // namespace

std::optional<analysis::DelayAnalysis> gather_root_causes(MPI_Comm comm, const model::Trace& tables,
                                                          std::vector<analysis::ReplayRank> ranks,
                                                          const sync::ReplayDirectory& directory,
                                                          void (*warn)(const std::string&)) {
  MPI_Comm own = MPI_COMM_NULL;
  PMPI_Comm_dup(comm, &own);
  analysis::ReplayDelays delays(
      tables, std::move(ranks), [&](std::int32_t r) { return directory.process_of(r); },
      [&](std::int32_t r) { return directory.position_of(r); });
  // Every process takes part in every exchange whatever it could read, so that none
  // waits for another that gave up.
  bool readable = true;
  auto guarded = [&](auto step) {
    if (!readable) return;
    try {
      step();
    } catch (const std::exception& e) {
      readable = false;
      warn(std::string("root causes: ") + e.what());
    }
  };
  int processes = 1;
  PMPI_Comm_size(own, &processes);
  const Parcels requests = delays.cause_requests(processes);
  // An answering step that failed on this process answers nothing: nobody waits.
  auto answering = [&](auto step) {
    return [&, step](const Parcels& asked) -> std::optional<Parcels> {
      Parcels replies;
      guarded([&] { replies = step(asked); });
      if (!readable) return std::nullopt;
      return replies;
    };
  };
  const Parcels causes =
      ask_and_answer(own, requests, kCauseTag, kToldTag,
                     answering([&](const Parcels& asked) { return delays.cause_replies(asked); }));
  guarded([&] { delays.apply_causes(causes); });
  const Parcels queries = delays.queries();
  const Parcels answers =
      ask_and_answer(own, queries, kQueryTag, kAnswerTag,
                     answering([&](const Parcels& asked) { return delays.answers(asked); }));
  guarded([&] { delays.apply(answers); });
  // Backward: each round passes propagated waiting one wait state further back.
  double left_out = 0;
  for (int round = 0;; ++round) {
    double seconds = 0;
    const Parcels hops = delays.take_hops(seconds);
    int any = hops.empty() ? 0 : 1, anyone = 0;
    PMPI_Allreduce(&any, &anyone, 1, MPI_INT, MPI_MAX, own);
    if (!anyone) break;
    if (round == kMaxPropagationRounds) {
      left_out = seconds;
      break;
    }
    const Parcels arrived = sparse_exchange(own, hops, kHopTag);
    guarded([&] { delays.receive_hops(arrived); });
  }
  double left_out_all = 0;
  PMPI_Reduce(&left_out, &left_out_all, 1, MPI_DOUBLE, MPI_SUM, 0, own);
  TreeTraffic traffic;
  auto merged = tree_reduce(
      delays.partial(), own, analysis::encode_delay_analysis, analysis::decode_delay_analysis,
      [](analysis::DelayAnalysis& into, analysis::DelayAnalysis&& from) {
        analysis::merge_delay_analysis(into, std::move(from));
      },
      traffic);
  PMPI_Comm_free(&own);
  if (traffic.undecodable > 0) {
    warn("root causes: " + std::to_string(traffic.undecodable) +
         " subtrees of processes sent unreadable parts");
  }
  if (merged) {
    analysis::sort_delays(*merged);
    if (left_out_all > 0) {
      warn("root causes: waiting propagated further back than " +
           std::to_string(kMaxPropagationRounds) + " wait states (" + std::to_string(left_out_all) +
           " s) is left out of the long-term costs");
    }
  }
  return merged;
}

}  // namespace mpidle::transport
