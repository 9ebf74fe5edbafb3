#include "analysis/prediction_choices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mpidle::analysis {
namespace {

std::string printed(const char* format, auto... values) {
  char line[512];
  std::snprintf(line, sizeof line, format, values...);
  return line;
}

}  // namespace

CpuScaleChoice choose_cpu_scale(double given, const model::MachineModel* source,
                                const model::MachineModel& target) {
  CpuScaleChoice c;
  if (given > 0) {
    c.scale = given;
    return c;
  }
  const bool references = source && source->compute && target.compute;
  if (source && !source->host.empty() && source->host == target.host &&
      !source->cpu_model.empty() && source->cpu_model == target.cpu_model) {
    // One host and CPU model probed twice (say inside and outside a network
    // namespace): one CPU, whatever the kernels' times say (--cpu-factor to differ).
    if (references) {
      c.spread = model::cpu_ratio_spread(*source->compute, *target.compute);
      const double ratio = model::cpu_ratio(*source->compute, *target.compute);
      if (std::abs(ratio - 1) > 0.03) {
        c.note = printed(
            "%s: probed on the same host and CPU (%s) as the source, yet its kernels ran "
            "%.1f%% %s: compute keeps its time (--cpu-factor to set one)",
            target.name.c_str(), source->cpu_model.c_str(), 100 * std::abs(ratio - 1),
            ratio > 1 ? "slower" : "faster");
      }
    }
  } else if (references) {
    c.scale = model::cpu_factor(*source->compute, *target.compute);
    c.spread = model::cpu_ratio_spread(*source->compute, *target.compute);
    const double ratio = model::cpu_ratio(*source->compute, *target.compute);
    if (c.scale == 1 && ratio != 1) {
      c.note = printed(
          "%s: CPU ratio %.3f lies within the probes' spread (%.1f%%): the same CPU, "
          "compute keeps its time",
          target.name.c_str(), ratio, 100 * c.spread);
    }
  } else {
    c.missing = true;
  }
  return c;
}

void predict_interval(Prediction& p, const PredictionInput& input, double cpu_spread,
                      const std::function<double(const PredictionInput&)>& wall_of) {
  if (!model::has_spread(input.machine) && cpu_spread <= 0) return;
  for (const double direction : {-1.0, 1.0}) {
    PredictionInput end = input;
    end.machine = model::shifted_by_spread(input.machine, direction);
    end.cpu_scale = input.cpu_scale * (1 + direction * cpu_spread);
    (direction < 0 ? p.wall_low_s : p.wall_high_s) = wall_of(end);
  }
  const double low = std::min({p.wall_low_s, p.wall_high_s, p.wall_s});
  p.wall_high_s = std::max({p.wall_low_s, p.wall_high_s, p.wall_s});
  p.wall_low_s = low;
}

}  // namespace mpidle::analysis
