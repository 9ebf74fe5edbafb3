// mpidle predict: a trace run replayed on target machine models (docs/prediction.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "analysis/analysis_output.hpp"
#include "analysis/prediction.hpp"
#include "analysis/prediction_choices.hpp"
#include "analysis/prediction_limits.hpp"
#include "analysis/prediction_output.hpp"
#include "analysis/simgrid_client.hpp"
#include "model/json_fields.hpp"
#include "model/machine_model.hpp"
#include "model/profile_reader.hpp"
#include "model/stage_log.hpp"
#include "model/trace_file.hpp"
#include "report/commands/command.hpp"
#include "report/launch/spawn.hpp"
#include "report/runs/prediction_run.hpp"
#include "report/runs/run_analysis.hpp"
#include "report/text/prediction_check.hpp"
#include "report/text/text_format.hpp"
#include "sync/trace_matching.hpp"

namespace mpidle::report {
namespace {

namespace fs = std::filesystem;

struct PredictOptions {
  std::string run;
  std::vector<std::string> machines;
  std::string source;
  std::string against;    // a run of the same program on the (one) target machine
  double cpu_scale = -1;  // < 0: from the compute references
  double latency_s = -1;
  double bandwidth = -1;
  std::size_t top = 5;
  std::string engine;  // "simgrid" or "mpidle"; empty: SimGrid where built in
};

// The SimGrid engine's program, built beside mpidle where SimGrid was found.
fs::path simgrid_helper() {
  return self_directory() / "mpidle-simgrid";
}

PredictOptions parse(Args args) {
  PredictOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool takes_value = a == "--machine" || a == "--source" || a == "--cpu-scale" ||
                             a == "--latency" || a == "--bandwidth" || a == "--top" ||
                             a == "--against" || a == "--cpu-factor" || a == "--engine";
    if (!takes_value) {
      take_positional(a, o.run, "run directory");
      continue;
    }
    if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
    const std::string& v = args[++i];
    if (a == "--machine") {
      o.machines.push_back(v);
    } else if (a == "--source") {
      o.source = v;
    } else if (a == "--against") {
      o.against = v;
    } else if (a == "--top") {
      o.top = top_option(v);
    } else if (a == "--engine") {
      if (v != "simgrid" && v != "mpidle") throw UsageError("--engine is simgrid or mpidle");
      if (v == "simgrid" && !fs::exists(simgrid_helper())) {
        throw UsageError(
            "--engine simgrid: this mpidle was built without SimGrid "
            "(install libsimgrid-dev and build again)");
      }
      o.engine = v;
    } else {
      const double x = number_option(a, v);
      if (a == "--cpu-scale" || a == "--cpu-factor") {
        if (!(x > 0 && x < 1e6)) throw UsageError(a + " must be a positive factor");
        o.cpu_scale = x;
      } else if (a == "--latency") {
        if (!(x >= 0 && x < 10)) throw UsageError("--latency is in seconds, from 0 to 10");
        o.latency_s = x;
      } else {
        if (!(x > 0 && x < 1e15)) throw UsageError("--bandwidth is in bytes per second, above 0");
        o.bandwidth = x;
      }
    }
  }
  if (o.run.empty()) throw UsageError("which run? (mpidle predict RUN_DIR --machine FILE)");
  if (o.machines.empty()) throw UsageError("which machine? (--machine FILE, from mpidle probe)");
  if (o.engine.empty()) o.engine = fs::exists(simgrid_helper()) ? "simgrid" : "mpidle";
  if (!o.against.empty() && o.machines.size() != 1) {
    throw UsageError("--against checks one machine's prediction: give one --machine");
  }
  return o;
}

model::MachineModel load_machine(const std::string& file) {
  try {
    return model::read_machine(file);
  } catch (const model::MachineError& e) {
    throw UsageError(e.what());
  }
}

// The target with the options' overrides applied.
model::MachineModel adjusted(model::MachineModel m, const PredictOptions& o) {
  auto adjust = [&](model::CostCurve& c) {
    if (o.latency_s >= 0) c = c.with_latency(o.latency_s);
    if (o.bandwidth > 0) c = c.with_bandwidth(o.bandwidth);
  };
  adjust(m.p2p);
  if (m.p2p_inter_node) adjust(*m.p2p_inter_node);
  // A measured two-way exchange belongs to the probed link, not to the one asked for.
  if (o.latency_s >= 0 || o.bandwidth > 0) {
    for (auto* messages : {&m.messages, &m.messages_inter_node}) {
      if (*messages) (*messages)->exchange.reset();
    }
  }
  return m;
}

// One replay of the trace on the chosen engine; SimGrid's failures (an inconsistent
// trace that blocks it, a platform too large for its route table) fall back to
// mpidle's own replay, which resolves cycles, and say so once.
analysis::Prediction replay(const PredictOptions& o, const fs::path& trace_file,
                            const model::Trace& trace, const sync::TraceMatching& matching,
                            const analysis::PredictionInput& input,
                            const analysis::PredictionProgress& progress = {}) {
  if (o.engine == "simgrid") {
    try {
      return analysis::predict_with_helper(simgrid_helper(), trace_file, input);
    } catch (const analysis::EngineError& e) {
      std::fprintf(stderr,
                   "mpidle predict: %s: SimGrid could not replay the trace (%s): "
                   "mpidle's own replay instead\n",
                   input.machine.name.c_str(), e.what());
    }
  }
  analysis::Prediction p = analysis::predict(trace, matching, input, progress);
  p.engine = "mpidle";
  return p;
}

std::string times(double predicted, double measured) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", measured > 0 ? predicted / measured : 0.0);
  return buf;
}

void print_target(const model::Trace& trace, const analysis::Prediction& p, std::size_t top) {
  const auto& t = p.total;
  const double whole = t.total_s() > 0 ? t.total_s() : 1;
  std::printf("\n%s (CPU x%.3g, %s): predicted wall %s (%s of measured %s); dominated by %s\n",
              p.machine.c_str(), p.cpu_scale, p.engine.c_str(), seconds(p.wall_s).c_str(),
              times(p.wall_s, p.measured_wall_s).c_str(), seconds(p.measured_wall_s).c_str(),
              p.dominant().c_str());
  if (p.wall_high_s > 0) {
    std::printf("  %s to %s at the ends of the probes' spread\n", seconds(p.wall_low_s).c_str(),
                seconds(p.wall_high_s).c_str());
  }
  std::printf(
      "  all ranks: compute %s (%.0f%%), latency %s (%.0f%%), bandwidth %s (%.0f%%), "
      "waiting %s (%.0f%%), other MPI %s (%.0f%%)\n",
      seconds(t.compute_s).c_str(), 100 * t.compute_s / whole, seconds(t.latency_s).c_str(),
      100 * t.latency_s / whole, seconds(t.bandwidth_s).c_str(), 100 * t.bandwidth_s / whole,
      seconds(t.wait_s).c_str(), 100 * t.wait_s / whole, seconds(t.other_s).c_str(),
      100 * t.other_s / whole);
  std::printf("  %-5s %12s %12s %12s %12s\n", "rank", "wall", "compute", "MPI", "waiting");
  for (std::size_t r = 0; r < p.ranks.size() && r < 16; ++r) {
    const auto& rank = p.ranks[r];
    std::printf("  %-5d %12s %12s %12s %12s\n", trace.ranks[r].rank, seconds(rank.wall_s).c_str(),
                seconds(rank.time.compute_s).c_str(), seconds(rank.time.mpi_s()).c_str(),
                seconds(rank.time.wait_s).c_str());
  }
  if (p.ranks.size() > 16)
    std::printf("  (%zu more ranks in prediction.json)\n", p.ranks.size() - 16);
  std::printf("  top callsites by predicted MPI time:\n");
  for (std::size_t i = 0; i < p.sites.size() && i < top; ++i) {
    const auto& s = p.sites[i];
    std::printf("    %-16s %-28s %10s MPI, %10s waiting\n", trace.functions.at(s.function).c_str(),
                model::innermost_location(trace.callsites.at(s.callsite).frames).c_str(),
                seconds(s.time.mpi_s()).c_str(), seconds(s.time.wait_s).c_str());
  }
  for (const auto& limit : p.limits)
    std::printf("  the model does not describe: %s\n", limit.c_str());
  if (p.unresolved > 0) {
    std::printf("  note: %llu dependencies formed a cycle and were ignored (inconsistent trace)\n",
                static_cast<unsigned long long>(p.unresolved));
  }
}

// The largest point-to-point message of the run, against the models' measured sizes.
std::uint64_t largest_sent_bytes(const model::Trace& trace) {
  std::uint64_t largest = 0;
  for (const auto& r : trace.ranks) {
    for (const auto& e : r.records) {
      if (e.role == model::TraceRole::send || e.role == model::TraceRole::isend) {
        largest = std::max(largest, e.bytes);
      }
    }
  }
  return largest;
}

// One target: the CPU scale, the replay and its interval (analysis/prediction_choices),
// and what the user should know of the target's model. `first`: the first target,
// which says once that compute keeps its time where nothing scales it.
analysis::Prediction predict_target(const PredictOptions& o, const fs::path& trace_file,
                                    const model::Trace& trace, const sync::TraceMatching& matching,
                                    analysis::PredictionInput& input,
                                    const std::optional<model::MachineModel>& source, bool first,
                                    bool show_progress) {
  const analysis::CpuScaleChoice cpu =
      analysis::choose_cpu_scale(o.cpu_scale, source ? &*source : nullptr, input.machine);
  input.cpu_scale = cpu.scale;
  if (!cpu.note.empty()) std::fprintf(stderr, "mpidle predict: %s\n", cpu.note.c_str());
  if (cpu.missing && first) {
    std::fprintf(stderr,
                 "mpidle predict: compute bursts keep their measured time (give --source with "
                 "the model of the machine the run was traced on, or --cpu-scale)\n");
  }
  analysis::Prediction p = replay(o, trace_file, trace, matching, input, [&](double done) {
    if (show_progress)
      std::fprintf(stderr, "mpidle predict: %s %3.0f%%\r", input.machine.name.c_str(), 100 * done);
  });
  if (show_progress) std::fputs("\n", stderr);
  // How sure: the same replay at both ends of what the probes saw.
  analysis::predict_interval(p, input, cpu.spread, [&](const analysis::PredictionInput& end) {
    return replay(o, trace_file, trace, matching, end).wall_s;
  });
  if (!input.machine.messages) {
    std::fprintf(stderr,
                 "mpidle predict: %s: its model has no message costs (mpidle-machine/1 or "
                 "written without them): no send or receive overheads, and every transfer "
                 "moves alone; `mpidle probe` measures them\n",
                 input.machine.name.c_str());
  }
  return p;
}

// Messages larger than the target's model measured: their time is extrapolated.
void note_message_sizes(analysis::Prediction& p, const model::MachineModel& machine,
                        std::uint64_t largest_sent) {
  const std::uint64_t measured = model::largest_measured_bytes(machine);
  if (largest_sent > 4 * std::max<std::uint64_t>(measured, 1)) {
    p.extrapolated_bytes = largest_sent;
    std::fprintf(stderr,
                 "mpidle predict: %s: messages of up to %llu bytes, beyond 4 x the largest "
                 "size its model measured (%llu bytes): their time is extrapolated\n",
                 machine.name.c_str(), static_cast<unsigned long long>(largest_sent),
                 static_cast<unsigned long long>(measured));
  }
}

// Several targets: fastest first.
void print_ranking(const model::Trace& trace,
                   const std::vector<analysis::Prediction>& predictions) {
  std::printf("\nranking (fastest first):\n");
  const auto json = analysis::prediction_json(trace, predictions, 0);
  int place = 1;
  for (const auto& row : json.at("ranking")) {
    std::printf("  %d. %-24s %12s  speed-up %.2f over the measured run, dominated by %s\n", place++,
                row.at("machine").get<std::string>().c_str(),
                seconds(row.at("wall_s").get<double>()).c_str(), row.at("speedup").get<double>(),
                row.at("dominant").get<std::string>().c_str());
  }
}

}  // namespace

int predict_command(Args args) {
  const PredictOptions o = parse(args);
  std::vector<model::MachineModel> targets;
  for (const auto& f : o.machines) targets.push_back(adjusted(load_machine(f), o));
  std::optional<model::MachineModel> source;
  if (!o.source.empty()) source = load_machine(o.source);

  const auto dir = run_directory(o.run);
  const auto profile = read_trace_run(dir);
  // The target run first: a wrong one is refused before any work.
  std::optional<model::Profile> target_run;
  nlohmann::json target_analysis;
  if (!o.against.empty()) {
    const fs::path target_dir = run_directory(o.against);
    try {
      target_run = model::read_profile(target_dir);
    } catch (const model::ProfileError& e) {
      throw UsageError(std::string("--against: ") + e.what());
    }
    require_comparable(profile, *target_run, o.against);
    target_analysis = run_document(target_dir.string(), analysis::kAnalysisFileName,
                                   analysis::kAnalysisSchema, analysis::kAnalysisSchemaV1);
  }
  const model::StageLog progress("mpidle predict", profile.trace->events);
  progress("reading");
  const fs::path trace_file = dir / profile.trace->file;
  const model::Trace trace = model::read_trace(trace_file);
  progress("replaying");
  for (const auto& r : trace.ranks) {
    if (r.synced.size() != 2 * r.records.size()) {
      throw UsageError(dir.string() + ": the trace has no synchronized timestamps (mpidle sync " +
                       dir.string() + ")");
    }
  }
  std::map<std::int64_t, std::string> host_of;
  for (const auto& r : profile.ranks) host_of[r.rank] = r.host;
  analysis::PredictionInput input;
  for (const auto& r : trace.ranks) input.hosts.push_back(host_of[r.rank]);
  const auto matching = sync::match_trace(trace);
  const bool show_progress = profile.trace->events >= 1'000'000;

  std::printf("mpidle predict: %s, %zu ranks, %llu events\n", dir.c_str(), trace.ranks.size(),
              static_cast<unsigned long long>(profile.trace->events));
  const std::uint64_t largest_sent = largest_sent_bytes(trace);
  std::vector<analysis::Prediction> predictions;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    input.machine = targets[i];
    if (input.machine.name.empty()) input.machine.name = fs::path(o.machines[i]).stem().string();
    predictions.push_back(
        predict_target(o, trace_file, trace, matching, input, source, i == 0, show_progress));
    predictions.back().limits = analysis::model_limits(trace, matching, input.machine);
    note_message_sizes(predictions.back(), input.machine, largest_sent);
    print_target(trace, predictions.back(), o.top);
  }
  if (predictions.size() > 1) print_ranking(trace, predictions);
  const fs::path out = dir / analysis::kPredictionFileName;
  nlohmann::json doc = analysis::prediction_json(trace, predictions);
  if (target_run) {
    const std::string machine = predictions.front().machine;
    const auto exact = exact_waits_of(target_analysis);
    const PredictionCheck check =
        check_prediction(prediction_as_profile(doc, profile, machine, out.string()), *target_run,
                         exact ? &*exact : nullptr, machine, o.against);
    std::fputs(format_check(check, o.top).c_str(), stdout);
    for (auto& t : doc.at("targets")) {
      if (t.value("machine", "") == machine) t["against"] = check_json(check);
    }
  }
  std::ofstream file(out);
  file << doc.dump(1) << '\n';
  if (!file) throw UsageError("cannot write " + out.string());
  std::fprintf(stderr, "mpidle predict: wrote %s\n", out.c_str());
  return 0;
}

}  // namespace mpidle::report
