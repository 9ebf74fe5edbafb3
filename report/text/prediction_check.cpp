#include "report/text/prediction_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "report/commands/command.hpp"
#include "report/text/compare.hpp"
#include "report/text/text_format.hpp"

namespace mpidle::report {
namespace {

namespace fs = std::filesystem;

std::string program_of(const model::Profile& p) {
  return fs::path(p.run.executable).filename().string();
}

std::string ratio(const CheckedTime& t) {
  char buf[32];
  if (t.measured > 0) {
    std::snprintf(buf, sizeof buf, "%.2fx", t.predicted / t.measured);
  } else {
    std::snprintf(buf, sizeof buf, "%s", t.predicted > 0 ? "new" : "-");
  }
  return buf;
}

std::string pair_text(const CheckedTime& t) {
  return seconds(t.predicted) + " / " + seconds(t.measured);
}

}  // namespace

void require_comparable(const model::Profile& ours, const model::Profile& target,
                        const std::string& target_run) {
  if (program_of(ours) != program_of(target)) {
    throw UsageError(target_run + " is a run of " + program_of(target) + ", the prediction is of " +
                     program_of(ours) + ": not comparable");
  }
  if (ours.ranks.size() != target.ranks.size()) {
    throw UsageError(target_run + " ran " + std::to_string(target.ranks.size()) +
                     " ranks, the prediction is of " + std::to_string(ours.ranks.size()) +
                     ": not comparable");
  }
}

PredictionCheck check_prediction(const model::Profile& predicted, const model::Profile& measured,
                                 const ExactWaits* exact, const std::string& machine,
                                 const std::string& target_run) {
  require_comparable(predicted, measured, target_run);
  PredictionCheck c;
  c.machine = machine;
  c.target_run = target_run;
  if (predicted.run.args != measured.run.args) {
    c.caveats.push_back("the runs' arguments differ");
  }
  if (!exact) {
    c.caveats.push_back("the target run is a profile: its waiting is the " +
                        measured.run.wait_estimate + " estimate, not the exact analysis");
  }

  // Ranks by number.
  std::map<std::int64_t, RankCheck> ranks;
  auto add_ranks = [&](const model::Profile& p, bool is_predicted) {
    for (const auto& r : p.ranks) {
      RankCheck& row = ranks[r.rank];
      row.rank = r.rank;
      auto put = [&](CheckedTime& t, double v) { (is_predicted ? t.predicted : t.measured) = v; };
      put(row.wall, r.wall_s);
      put(row.mpi, r.mpi_s);
      put(row.wait, r.wait_s);
      put(row.compute, std::max(0.0, r.wall_s - r.mpi_s));
    }
  };
  add_ranks(predicted, true);
  add_ranks(measured, false);
  for (auto& [rank, row] : ranks) {
    c.wall.predicted = std::max(c.wall.predicted, row.wall.predicted);
    c.wall.measured = std::max(c.wall.measured, row.wall.measured);
    c.ranks.push_back(row);
  }

  // Callsites by (function, source location), as `mpidle compare` matches them.
  std::map<std::pair<std::string, std::string>, SiteCheck> sites;
  // Bytes and visits per callsite, predicted side [0] and measured [1].
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> bytes_visits[2];
  auto add_sites = [&](const model::Profile& p, bool is_predicted) {
    for (const auto& s : p.callsites) {
      const std::pair<std::string, std::string> key{s.function,
                                                    model::innermost_location(s.frames)};
      SiteCheck& row = sites[key];
      row.function = key.first;
      row.location = key.second;
      double wait = s.wait_s;
      if (!is_predicted && exact) {
        auto it = exact->by_site.find(key);
        wait = it != exact->by_site.end() ? it->second : 0.0;
      }
      (is_predicted ? row.time.predicted : row.time.measured) += s.time_s;
      (is_predicted ? row.wait.predicted : row.wait.measured) += wait;
      auto& [bytes, visits] = bytes_visits[is_predicted ? 0 : 1][key];
      bytes += s.bytes;
      visits += static_cast<double>(s.visits);
    }
  };
  add_sites(predicted, true);
  add_sites(measured, false);

  c.categories = {
      {"compute", {}}, {"latency-bound MPI", {}}, {"bandwidth-bound MPI", {}}, {"waiting", {}}};
  for (const auto& row : c.ranks) {
    c.categories[0].time.predicted += row.compute.predicted;
    c.categories[0].time.measured += row.compute.measured;
  }
  for (auto& [key, row] : sites) {
    // The measured run's bytes decide the class; the prediction's where it has none.
    const auto& [bytes, visits] =
        bytes_visits[1][key].second > 0 ? bytes_visits[1][key] : bytes_visits[0][key];
    row.bandwidth_bound = visits > 0 && bytes / visits > kLatencyBoundBytes;
    CheckedTime& processing = c.categories[row.bandwidth_bound ? 2 : 1].time;
    processing.predicted += std::max(0.0, row.time.predicted - row.wait.predicted);
    processing.measured += std::max(0.0, row.time.measured - row.wait.measured);
    c.categories[3].time.predicted += row.wait.predicted;
    c.categories[3].time.measured += row.wait.measured;
    c.callsites.push_back(row);
  }
  std::stable_sort(c.callsites.begin(), c.callsites.end(), [](const auto& a, const auto& b) {
    return std::abs(a.time.miss()) > std::abs(b.time.miss());
  });
  for (std::size_t i = 1; i < c.categories.size(); ++i) {
    if (std::abs(c.categories[i].time.miss()) >
        std::abs(c.categories[c.largest_category].time.miss())) {
      c.largest_category = i;
    }
  }
  // The callsite that contributes most to the largest category's miss.
  const std::size_t k = c.largest_category;
  double most = 0;
  for (const auto& s : c.callsites) {
    double part = 0;
    if (k == 3) {
      part = s.wait.miss();
    } else if ((k == 2) == s.bandwidth_bound && k != 0) {
      part = (s.time.predicted - s.wait.predicted) - (s.time.measured - s.wait.measured);
    }
    if (std::abs(part) > most) {
      most = std::abs(part);
      c.largest_site = s.function + " " + s.location;
    }
  }
  return c;
}

std::string format_check(const PredictionCheck& c, std::size_t top) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "\nagainst %s (a run on %s): predicted / measured\n",
                c.target_run.c_str(), c.machine.c_str());
  out += line;
  for (const auto& caveat : c.caveats) out += "  note: " + caveat + "\n";
  std::snprintf(line, sizeof line, "  wall (slowest rank)   %28s  %s\n", pair_text(c.wall).c_str(),
                ratio(c.wall).c_str());
  out += line;
  out += "  all ranks:\n";
  for (const auto& cat : c.categories) {
    std::snprintf(line, sizeof line, "    %-20s %27s  %s\n", cat.name.c_str(),
                  pair_text(cat.time).c_str(), ratio(cat.time).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "  %-5s %26s %26s %26s %26s\n", "rank", "wall", "compute", "MPI",
                "waiting");
  out += line;
  for (std::size_t i = 0; i < c.ranks.size() && i < 16; ++i) {
    const auto& r = c.ranks[i];
    std::snprintf(line, sizeof line, "  %-5lld %26s %26s %26s %26s\n",
                  static_cast<long long>(r.rank), pair_text(r.wall).c_str(),
                  pair_text(r.compute).c_str(), pair_text(r.mpi).c_str(),
                  pair_text(r.wait).c_str());
    out += line;
  }
  if (c.ranks.size() > 16) out += "  (more ranks in prediction.json)\n";
  out += "  callsites by their miss:\n";
  for (std::size_t i = 0; i < c.callsites.size() && i < top; ++i) {
    const auto& s = c.callsites[i];
    std::snprintf(line, sizeof line, "    %-16s %-30s %26s %s, waiting %s\n", s.function.c_str(),
                  s.location.c_str(), pair_text(s.time).c_str(), ratio(s.time).c_str(),
                  pair_text(s.wait).c_str());
    out += line;
  }
  const auto& worst = c.categories[c.largest_category];
  std::snprintf(line, sizeof line, "  largest miss: %s, predicted %s against %s measured (%s)",
                worst.name.c_str(), seconds(worst.time.predicted).c_str(),
                seconds(worst.time.measured).c_str(), ratio(worst.time).c_str());
  out += line;
  if (!c.largest_site.empty()) out += "; most of it at " + c.largest_site;
  out += "\n";
  return out;
}

nlohmann::json check_json(const PredictionCheck& c) {
  auto pair = [](const CheckedTime& t) {
    return nlohmann::json{{"predicted_s", t.predicted}, {"measured_s", t.measured}};
  };
  nlohmann::json categories = nlohmann::json::object();
  for (const auto& cat : c.categories) categories[cat.name] = pair(cat.time);
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : c.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"wall", pair(r.wall)},
                     {"compute", pair(r.compute)},
                     {"mpi", pair(r.mpi)},
                     {"wait", pair(r.wait)}});
  }
  nlohmann::json sites = nlohmann::json::array();
  for (const auto& s : c.callsites) {
    sites.push_back({{"function", s.function},
                     {"location", s.location},
                     {"bandwidth_bound", s.bandwidth_bound},
                     {"time", pair(s.time)},
                     {"wait", pair(s.wait)}});
  }
  return {{"run", c.target_run},
          {"caveats", c.caveats},
          {"wall", pair(c.wall)},
          {"categories", categories},
          {"ranks", ranks},
          {"callsites", sites},
          {"largest_miss",
           {{"category", c.categories[c.largest_category].name}, {"callsite", c.largest_site}}}};
}

}  // namespace mpidle::report
