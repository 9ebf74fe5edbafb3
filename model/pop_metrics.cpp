#include "pop_metrics.hpp"

#include <algorithm>

namespace mpidle::model {
namespace {
double ratio(double a, double b) {
  return b > 0 ? a / b : 0.0;
}
}  // namespace

PopEfficiency pop_efficiency(const std::vector<double>& useful_s,
                             const std::vector<double>& wall_s) {
  PopEfficiency e;
  for (double w : wall_s) e.runtime_s = std::max(e.runtime_s, w);
  double sum = 0;
  for (double u : useful_s) {
    const double useful = std::max(0.0, u);
    sum += useful;
    e.useful_max_s = std::max(e.useful_max_s, useful);
  }
  e.useful_mean_s = useful_s.empty() ? 0.0 : sum / static_cast<double>(useful_s.size());
  return pop_efficiency(e.runtime_s, e.useful_mean_s, e.useful_max_s);
}

PopEfficiency pop_efficiency(double runtime_s, double useful_mean_s, double useful_max_s) {
  PopEfficiency e;
  e.runtime_s = runtime_s;
  e.useful_mean_s = useful_mean_s;
  e.useful_max_s = useful_max_s;
  e.load_balance = ratio(e.useful_mean_s, e.useful_max_s);
  e.communication = std::min(1.0, ratio(e.useful_max_s, e.runtime_s));
  e.parallel = e.load_balance * e.communication;
  return e;
}

void add_ideal_network(PopEfficiency& e, double ideal_runtime_s) {
  const double ideal =
      std::clamp(ideal_runtime_s, e.useful_max_s, std::max(e.useful_max_s, e.runtime_s));
  e.ideal_runtime_s = ideal;
  e.serialization = std::min(1.0, ratio(e.useful_max_s, ideal));
  e.transfer = std::min(1.0, ratio(ideal, e.runtime_s));
}

}  // namespace mpidle::model
