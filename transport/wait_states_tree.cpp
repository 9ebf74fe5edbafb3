#include "transport/wait_states_tree.hpp"

#include "analysis/rank_waits.hpp"
#include "analysis/wait_states_codec.hpp"
#include "transport/byte_tree.hpp"

namespace mpidle::transport {

std::optional<analysis::WaitStates> gather_wait_states(
    MPI_Comm comm, const model::Trace& tables, const std::vector<const model::RankTrace*>& ranks,
    const std::vector<std::uint32_t>& positions, const std::vector<sync::RankPartners>& partners,
    std::uint64_t complete_collectives, void (*warn)(const std::string&),
    const CalibrationRequest& calibration, std::vector<analysis::ReplayRank>* delay_inputs) {
  TreeTraffic traffic;
  // The late-receiver rule judges a send by its class over the whole run.
  analysis::SendClasses mine;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    analysis::merge_send_classes(mine, analysis::send_classes(*ranks[i], partners.at(i)));
  }
  const auto everyone =
      tree_allreduce(
          std::move(mine), comm, analysis::encode_send_classes, analysis::decode_send_classes,
          [](analysis::SendClasses& into, analysis::SendClasses&& from) {
            analysis::merge_send_classes(into, from);
          },
          traffic)
          .value_or(analysis::SendClasses{});

  analysis::WaitStates waits;
  model::Calibration calibrated;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    try {
      analysis::CallWaits call_waits;
      std::vector<analysis::RankWaitEvent> events;
      analysis::RankWaitObserver observer;
      if (delay_inputs) {
        observer = [&](const analysis::RankWaitEvent& e) { events.push_back(e); };
      }
      auto found = analysis::rank_wait_states(
          tables, *ranks[i], positions.at(i), partners.at(i), everyone,
          calibration.out || delay_inputs ? &call_waits : nullptr, observer);
      if (calibration.out) {
        model::merge_calibration(
            calibrated, analysis::calibrate_rank(tables, *ranks[i], partners.at(i), call_waits));
      }
      if (!calibration.calibration_only) analysis::merge_wait_states(waits, std::move(found));
      if (delay_inputs) {
        delay_inputs->push_back(
            {ranks[i], positions.at(i), std::move(call_waits), std::move(events), &partners.at(i)});
      }
    } catch (const std::exception& e) {
      warn("no wait states for rank " + std::to_string(ranks[i]->rank) + ": " + e.what());
    }
  }
  if (calibration.out) {
    // One rank per process (a finalize): its own calls stay with it as well.
    const model::Calibration mine = ranks.size() == 1 ? calibrated : model::Calibration{};
    *calibration.out = model::with_own_part(
        tree_allreduce(
            std::move(calibrated), comm, model::encode_calibration, model::decode_calibration,
            [](model::Calibration& into, model::Calibration&& from) {
              model::merge_calibration(into, from);
            },
            traffic)
            .value_or(model::Calibration{}),
        mine);
  }
  if (calibration.calibration_only) return std::nullopt;
  auto merged = tree_reduce(
      std::move(waits), comm, analysis::encode_wait_states, analysis::decode_wait_states,
      [](analysis::WaitStates& into, analysis::WaitStates&& from) {
        analysis::merge_wait_states(into, std::move(from));
      },
      traffic);
  if (traffic.undecodable > 0) {
    warn(std::to_string(traffic.undecodable) + " subtrees of ranks sent unreadable wait states");
  }
  if (merged) merged->collectives = complete_collectives;
  return merged;
}

}  // namespace mpidle::transport
