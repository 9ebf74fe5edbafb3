#include "machine_launches.hpp"

#include <algorithm>
#include <numeric>

namespace mpidle::model {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// (largest − smallest) / median; 0 for a median of 0.
double range_over_median(const std::vector<double>& v) {
  const double m = median(v);
  if (m <= 0) return 0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / m;
}

// Every curve of a model, in one fixed order.
std::vector<CostCurve*> curves_of(MachineModel& m) {
  std::vector<CostCurve*> out{&m.p2p};
  if (m.p2p_inter_node) out.push_back(&*m.p2p_inter_node);
  for (auto* messages : {&m.messages, &m.messages_inter_node}) {
    if (!*messages) continue;
    out.push_back(&(*messages)->send_overhead);
    out.push_back(&(*messages)->receive_overhead);
    if ((*messages)->exchange) out.push_back(&*(*messages)->exchange);
    if ((*messages)->blocking_send) out.push_back(&*(*messages)->blocking_send);
  }
  for (auto& [name, model] : m.collectives) {
    for (auto& [ranks, curve] : model.by_ranks) out.push_back(&curve);
  }
  return out;
}

double total_p2p_s(const MachineModel& m) {
  double t = 0;
  for (const auto& p : m.p2p.points) t += p.seconds;
  return t;
}

}  // namespace

MachineModel merge_launches(const std::vector<MachineModel>& launches) {
  if (launches.empty()) throw MachineError("no probe launches to merge");
  std::vector<MachineModel> copies = launches;
  // The launch with the median point-to-point times lends its structure.
  std::vector<std::size_t> order(copies.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return total_p2p_s(copies[a]) < total_p2p_s(copies[b]);
  });
  MachineModel out = copies[order[order.size() / 2]];
  out.launches = static_cast<std::uint32_t>(copies.size());
  std::vector<std::vector<CostCurve*>> all;
  for (auto& m : copies) all.push_back(curves_of(m));
  const std::vector<CostCurve*> merged = curves_of(out);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].size() != merged.size()) {
      throw MachineError("probe launch " + std::to_string(i + 1) +
                         " measured other curves than the others");
    }
  }
  for (std::size_t c = 0; c < merged.size(); ++c) {
    for (std::size_t k = 0; k < merged[c]->points.size(); ++k) {
      std::vector<double> seconds, spreads;
      for (std::size_t i = 0; i < all.size(); ++i) {
        const auto& points = all[i][c]->points;
        if (points.size() != merged[c]->points.size() ||
            points[k].bytes != merged[c]->points[k].bytes) {
          throw MachineError("probe launch " + std::to_string(i + 1) +
                             " measured other sizes than the others");
        }
        seconds.push_back(points[k].seconds);
        spreads.push_back(points[k].spread);
      }
      CostPoint& p = merged[c]->points[k];
      p.seconds = median(seconds);
      p.launch_spread = range_over_median(seconds);
      p.spread = std::max(median(spreads), 0.5 * p.launch_spread);
    }
  }
  // The link's sharing from the launches' median both-ways and incast ratios.
  auto resolve_sharing = [&](std::optional<MessageCosts> MachineModel::*field) {
    auto& costs = out.*field;
    if (!costs) return;
    for (double MessageCosts::*ratio :
         {&MessageCosts::exchange_ratio, &MessageCosts::incast_ratio}) {
      std::vector<double> ratios;
      for (const auto& m : copies) {
        if ((m.*field) && (*(m.*field)).*ratio > 0) ratios.push_back((*(m.*field)).*ratio);
      }
      if (!ratios.empty()) (*costs).*ratio = median(ratios);
    }
    if (costs->exchange_ratio > 0) costs->sharing = sharing_of_ratio(costs->exchange_ratio);
  };
  resolve_sharing(&MachineModel::messages);
  resolve_sharing(&MachineModel::messages_inter_node);
  if (out.compute) {
    std::vector<double> memory, compute, memory_spread, compute_spread;
    for (const auto& m : copies) {
      if (!m.compute) throw MachineError("a probe launch has no compute kernels");
      memory.push_back(m.compute->memory_bound_s);
      compute.push_back(m.compute->compute_bound_s);
      memory_spread.push_back(m.compute->memory_bound_spread);
      compute_spread.push_back(m.compute->compute_bound_spread);
    }
    ComputeReference& r = *out.compute;
    r.memory_bound_s = median(memory);
    r.compute_bound_s = median(compute);
    r.memory_bound_launch_spread = range_over_median(memory);
    r.compute_bound_launch_spread = range_over_median(compute);
    r.memory_bound_spread = std::max(median(memory_spread), 0.5 * r.memory_bound_launch_spread);
    r.compute_bound_spread = std::max(median(compute_spread), 0.5 * r.compute_bound_launch_spread);
  }
  return out;
}

}  // namespace mpidle::model
