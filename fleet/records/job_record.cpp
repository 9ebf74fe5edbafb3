#include "fleet/records/job_record.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

#include "model/pop_metrics.hpp"
#include "model/run_info.hpp"

namespace mpidle::fleet {
namespace {

double number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string text(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The `n` rows of an array with the largest `key`, largest first.
std::vector<const nlohmann::json*> top_rows(const nlohmann::json& rows, const char* key,
                                            std::size_t n) {
  std::vector<const nlohmann::json*> sorted;
  if (rows.is_array()) {
    for (const auto& r : rows) {
      if (r.is_object()) sorted.push_back(&r);
    }
  }
  const std::size_t keep = std::min(n, sorted.size());
  std::partial_sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(keep),
                    sorted.end(), [&](const nlohmann::json* a, const nlohmann::json* b) {
                      return number(*a, key) > number(*b, key);
                    });
  sorted.resize(keep);
  return sorted;
}

// "file:line (function)" of a callsite's first frame, or its function's name.
std::string callsite_location(const nlohmann::json& callsite) {
  const auto frames = callsite.find("frames");
  if (frames == callsite.end() || !frames->is_array() || frames->empty()) return "unknown";
  const auto& f = frames->front();
  const std::string file = text(f, "file");
  const std::string function = text(f, "function");
  if (!file.empty()) {
    return std::filesystem::path(file).filename().string() + ":" +
           std::to_string(static_cast<long long>(number(f, "line"))) +
           (function.empty() ? "" : " (" + function + ")");
  }
  return function.empty() ? text(f, "module") : function;
}

// The application a job ran: the executable's name, but a Python interpreter's
// job is its script's (python3 app.py is "app.py"), or every mpi4py program of a
// centre would be one application, "python3.11".
std::string application_of(const std::string& executable, const nlohmann::json& args) {
  const std::string name = std::filesystem::path(executable).filename().string();
  if (name.rfind("python", 0) != 0 || !args.is_array()) return name;
  bool option_value = false;  // the argument of -W or -X
  for (const auto& a : args) {
    if (!a.is_string()) break;
    const std::string arg = a.get<std::string>();
    if (std::exchange(option_value, false)) continue;
    if (arg == "-m" || arg == "-c") break;  // a module or a command: no script
    if (arg == "-W" || arg == "-X") option_value = true;
    if (arg.empty() || arg[0] == '-') continue;
    return std::filesystem::path(arg).filename().string();
  }
  return name;
}

// "whole" (MPI_Finalize), "incomplete" (merged from the ranks' checkpoints: the
// job was killed, or is still running) or "partial" (one rank's own profile).
std::string status_of(const std::string& ended) {
  if (ended == "MPI_Finalize") return "whole";
  return ended == "checkpoint" ? "incomplete" : "partial";
}

}  // namespace

nlohmann::json job_record(const nlohmann::json& profile) {
  if (!profile.is_object() || !profile.contains("run") || !profile["run"].is_object() ||
      !profile.contains("ranks") || !profile["ranks"].is_array()) {
    throw std::runtime_error("not an mpidle profile (no run or ranks section)");
  }
  const auto& run = profile["run"];
  // The estimate the reports use: every row's wait_s since run.wait_estimate exists;
  // before, against each rank's own minima or the global ones.
  const bool global = text(run, "minimum") == "global";
  const bool named = run.contains("wait_estimate") && run["wait_estimate"].is_string();
  const char* wait_key = !named && global ? "wait_s_global_min" : "wait_s";
  const std::string estimate = named ? text(run, "wait_estimate") : global ? "global" : "minimum";
  const auto& ranks = profile["ranks"];
  double mpi_s = 0, wait_s = 0, busiest_wall = 0;
  double share_min = 1, share_max = 0, share_sum = 0;
  std::vector<double> useful, walls;
  for (const auto& r : ranks) {
    const double wall = number(r, "wall_s");
    const double mpi = number(r, "mpi_s");
    mpi_s += mpi;
    wait_s += number(r, wait_key);
    busiest_wall = std::max(busiest_wall, wall);
    const double share = wall > 0 ? mpi / wall : 0;
    share_min = std::min(share_min, share);
    share_max = std::max(share_max, share);
    share_sum += share;
    useful.push_back(wall - mpi);
    walls.push_back(wall);
  }
  // POP's efficiencies, as profile.json has them (computed for older profiles).
  model::PopEfficiency efficiency = model::pop_efficiency(useful, walls);
  if (profile.contains("efficiency") && profile["efficiency"].is_object()) {
    const auto& e = profile["efficiency"];
    efficiency.parallel = number(e, "parallel");
    efficiency.load_balance = number(e, "load_balance");
    efficiency.communication = number(e, "communication");
  }
  const auto n_ranks = static_cast<double>(ranks.size());
  const double wall_s = std::max(number(run, "wall_s"), busiest_wall);
  const double rank_seconds = wall_s * n_ranks;

  nlohmann::json job = profile.contains("job") && profile["job"].is_object()
                           ? profile["job"]
                           : nlohmann::json::object();
  if (!job.contains("executable")) job["executable"] = text(run, "executable");
  if (!job.contains("start")) job["start"] = text(run, "start");
  if (!job.contains("ranks")) job["ranks"] = ranks.size();
  if (!job.contains("mpi_library")) job["mpi_library"] = text(run, "mpi_library");
  if (!job.contains("scheduler")) job["scheduler"] = "none";

  static const nlohmann::json none = nlohmann::json::array();
  const auto& all_callsites = profile.contains("callsites") ? profile["callsites"] : none;
  const auto& all_functions = profile.contains("functions") ? profile["functions"] : none;
  nlohmann::json callsites = nlohmann::json::array();
  for (const auto* c : top_rows(all_callsites, wait_key, kJobRecordCallsites)) {
    callsites.push_back({{"function", text(*c, "function")},
                         {"location", callsite_location(*c)},
                         {"visits", number(*c, "visits")},
                         {"time_s", number(*c, "time_s")},
                         {"wait_s", number(*c, wait_key)}});
  }
  nlohmann::json functions = nlohmann::json::array();
  for (const auto* f : top_rows(all_functions, "time_s", kJobRecordFunctions)) {
    functions.push_back({{"name", text(*f, "name")},
                         {"calls", number(*f, "calls")},
                         {"time_s", number(*f, "time_s")},
                         {"wait_s", number(*f, wait_key)},
                         {"bytes", number(*f, "bytes")}});
  }
  const std::string executable = job.value("executable", "");
  return {{"schema", kJobRecordSchema},
          {"producer", model::mpidle_producer()},
          {"status", status_of(text(run, "ended"))},
          {"ended", text(run, "ended")},
          {"mode", text(run, "mode")},
          {"application",
           application_of(executable, run.contains("args") ? run["args"] : nlohmann::json())},
          {"job", job},
          {"wall_s", wall_s},
          {"ranks", ranks.size()},
          {"core_hours", rank_seconds / 3600},
          {"mpi_s", mpi_s},
          {"wait_s", wait_s},
          {"wait_core_hours", wait_s / 3600},
          {"mpi_share", rank_seconds > 0 ? mpi_s / rank_seconds : 0.0},
          {"wait_share", rank_seconds > 0 ? wait_s / rank_seconds : 0.0},
          {"wait_estimate", estimate},
          {"efficiency",
           {{"parallel", efficiency.parallel},
            {"load_balance", efficiency.load_balance},
            {"communication", efficiency.communication}}},
          {"rank_mpi_share",
           {{"min", ranks.empty() ? 0.0 : share_min},
            {"mean", ranks.empty() ? 0.0 : share_sum / n_ranks},
            {"max", share_max}}},
          {"functions", functions},
          {"callsites", callsites}};
}

}  // namespace mpidle::fleet
