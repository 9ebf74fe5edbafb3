#include "prediction_output.hpp"

#include <algorithm>
#include <map>

#include "model/json_fields.hpp"
#include "model/run_info.hpp"

namespace mpidle::analysis {
namespace {

using nlohmann::json;

json split_json(const TimeSplit& t) {
  return {{"compute_s", t.compute_s},     {"mpi_s", t.mpi_s()}, {"latency_s", t.latency_s},
          {"bandwidth_s", t.bandwidth_s}, {"wait_s", t.wait_s}, {"other_mpi_s", t.other_s}};
}

json target_json(const model::Trace& trace, const Prediction& p, std::size_t top) {
  json ranks = json::array();
  for (std::size_t r = 0; r < p.ranks.size(); ++r) {
    json row = split_json(p.ranks[r].time);
    row["rank"] = trace.ranks[r].rank;
    row["wall_s"] = p.ranks[r].wall_s;
    row["measured_wall_s"] = p.ranks[r].measured_wall_s;
    ranks.push_back(std::move(row));
  }
  std::map<std::string, TimeSplit> by_function;
  std::map<std::string, std::uint64_t> calls;
  for (const auto& s : p.sites) {
    const std::string& f = trace.functions.at(s.function);
    by_function[f].add(s.time);
    calls[f] += s.calls;
  }
  json functions = json::array();
  for (const auto& [name, t] : by_function) {
    json row = split_json(t);
    row["name"] = name;
    row["calls"] = calls[name];
    functions.push_back(std::move(row));
  }
  std::sort(functions.begin(), functions.end(), [](const json& a, const json& b) {
    return a.at("mpi_s").get<double>() > b.at("mpi_s").get<double>();
  });
  json sites = json::array();
  for (std::size_t i = 0; i < p.sites.size() && i < top; ++i) {
    const auto& s = p.sites[i];
    json row = split_json(s.time);
    row["function"] = trace.functions.at(s.function);
    row["location"] = model::innermost_location(trace.callsites.at(s.callsite).frames);
    row["frames"] = model::frames_json(trace.callsites.at(s.callsite));
    row["calls"] = s.calls;
    sites.push_back(std::move(row));
  }
  json doc = {{"machine", p.machine},         {"cpu_scale", p.cpu_scale},
              {"wall_s", p.wall_s},           {"measured_wall_s", p.measured_wall_s},
              {"dominant", p.dominant()},     {"total", split_json(p.total)},
              {"events", p.events},           {"unresolved_dependencies", p.unresolved},
              {"ranks", std::move(ranks)},    {"functions", std::move(functions)},
              {"callsites", std::move(sites)}};
  if (p.wall_high_s > 0) doc["wall_s_range"] = {p.wall_low_s, p.wall_high_s};
  if (p.extrapolated_bytes > 0) doc["extrapolated_bytes"] = p.extrapolated_bytes;
  if (!p.limits.empty()) doc["model_limits"] = p.limits;
  if (!p.engine.empty()) doc["engine"] = p.engine;
  return doc;
}

}  // namespace

json prediction_json(const model::Trace& trace, const std::vector<Prediction>& targets,
                     std::size_t sites) {
  json all = json::array();
  for (const auto& p : targets) all.push_back(target_json(trace, p, sites));
  // The procurement answer: targets by predicted wall time, fastest first.
  std::vector<std::size_t> order(targets.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return targets[a].wall_s < targets[b].wall_s;
  });
  json ranking = json::array();
  for (const auto i : order) {
    ranking.push_back(
        {{"machine", targets[i].machine},
         {"wall_s", targets[i].wall_s},
         {"speedup", targets[i].wall_s > 0 ? targets[i].measured_wall_s / targets[i].wall_s : 0.0},
         {"dominant", targets[i].dominant()}});
  }
  return {{"schema", kPredictionSchema},
          {"producer", model::mpidle_producer()},
          {"targets", std::move(all)},
          {"ranking", std::move(ranking)}};
}

}  // namespace mpidle::analysis
