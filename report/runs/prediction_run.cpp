#include "report/runs/prediction_run.hpp"

#include <fstream>
#include <map>

#include "model/json_fields.hpp"

namespace mpidle::report {

namespace fs = std::filesystem;
using model::Fields;
using model::ProfileError;
using nlohmann::json;

bool is_prediction_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path);
  const json doc = model::read_json(in);
  return doc.is_object() && doc.value("schema", "") == "mpidle-prediction/1";
}

namespace {

// A prediction has one wait, the replay's: it is every estimate's.
model::WaitColumns every_estimate(double wait_s) {
  model::WaitColumns e;
  e.wait_s_robust = e.wait_s_minimum = e.wait_s_calibrated = wait_s;
  return e;
}

}  // namespace

model::Profile read_prediction_as_profile(const fs::path& path, const std::string& machine) {
  std::ifstream in(path);
  const json doc = model::read_json(in);
  if (doc.is_discarded()) throw ProfileError(path.string() + ": not JSON");
  // The run it predicts: its directory holds the measured profile.
  return prediction_as_profile(doc, model::read_profile(path.parent_path()), machine,
                               path.string());
}

model::Profile prediction_as_profile(const json& doc, const model::Profile& measured,
                                     const std::string& machine, const std::string& where) {
  const Fields top(doc, where);
  const json* target = nullptr;
  std::string names;
  for (const auto& t : top.array("targets")) {
    const std::string name = Fields(t, "target").get<std::string>("machine");
    names += (names.empty() ? "" : ", ") + name;
    if (!target && (machine.empty() || name == machine)) target = &t;
  }
  if (!target) {
    throw ProfileError(where + " has no target \"" + machine + "\" (it has: " + names + ")");
  }
  const Fields t(*target, "target");
  model::Profile p;
  p.schema_version = measured.schema_version;
  p.run = measured.run;
  p.run.mpi_library = "predicted on " + t.get<std::string>("machine");
  p.run.mode = "prediction";
  std::map<std::int64_t, const model::RankRow*> measured_rank;
  for (const auto& r : measured.ranks) measured_rank[r.rank] = &r;
  double wall = 0;
  for (const auto& row : t.array("ranks")) {
    const Fields f(row, "ranks[]");
    model::RankRow r;
    r.rank = f.get<std::int64_t>("rank");
    r.host = t.get<std::string>("machine");
    const auto it = measured_rank.find(r.rank);
    const double outside =
        it == measured_rank.end() ? 0 : it->second->wall_s - f.get<double>("measured_wall_s");
    r.wall_s = std::max(0.0, outside) + f.get<double>("wall_s");
    r.mpi_s = f.get<double>("mpi_s");
    r.wait_s = r.wait_s_global_min = f.get<double>("wait_s");
    r.estimates = every_estimate(r.wait_s);
    if (it != measured_rank.end()) r.calls = it->second->calls;
    wall = std::max(wall, r.wall_s);
    p.ranks.push_back(r);
  }
  p.run.wall_s = wall;
  p.efficiency = model::pop_efficiency_of(p.ranks);
  for (const auto& row : t.array("functions")) {
    const Fields f(row, "functions[]");
    model::FunctionRow r;
    r.name = f.get<std::string>("name");
    r.calls = f.get<std::uint64_t>("calls");
    r.time_s = f.get<double>("mpi_s");
    r.wait_s = r.wait_s_global_min = f.get<double>("wait_s");
    r.estimates = every_estimate(r.wait_s);
    p.functions.push_back(r);
  }
  // Bytes per callsite from the measured run, so that the comparison can tell
  // latency- from bandwidth-bound callsites on the predicted side too.
  std::map<std::pair<std::string, std::string>, double> bytes;
  for (const auto& c : measured.callsites) {
    bytes[{c.function, model::innermost_location(c.frames)}] += c.bytes;
  }
  std::int64_t id = 0;
  for (const auto& row : t.array("callsites")) {
    const Fields f(row, "callsites[]");
    model::CallsiteRow c;
    c.id = id++;
    c.function = f.get<std::string>("function");
    for (const auto& frame : f.array("frames"))
      c.frames.push_back(model::parse_frame(Fields(frame, "frames[]")));
    c.visits = f.get<std::uint64_t>("calls");
    c.time_s = f.get<double>("mpi_s");
    c.wait_s = c.wait_s_global_min = f.get<double>("wait_s");
    c.estimates = every_estimate(c.wait_s);
    c.bytes = bytes[{c.function, model::innermost_location(c.frames)}];
    p.callsites.push_back(std::move(c));
  }
  return p;
}

}  // namespace mpidle::report
