#include "report/text/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include "model/calibration.hpp"
#include "report/text/text_format.hpp"

namespace mpidle::report {
namespace {

std::string label_of(const model::Profile& p) {
  std::string s = std::filesystem::path(p.run.executable).filename().string();
  for (const auto& arg : p.run.args) s += " " + arg;
  return s;
}

std::string ratio_text(const Pair& p) {
  const double r = p.ratio();
  if (std::isinf(r)) return "new";
  if (p.a == 0 && p.b == 0) return "-";
  return format("x%.2f", r);
}

}  // namespace

double Pair::ratio() const {
  if (a == 0) return b == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return b / a;
}

namespace {

// Σ PAPI_TOT_INS and Σ PAPI_TOT_CYC over every rank's compute bursts, or why not.
struct UsefulCounts {
  double instructions = 0, cycles = 0;
  std::string missing;
};

UsefulCounts useful_counts(const model::Profile& p) {
  UsefulCounts u;
  if (!p.trace) {
    u.missing = "a profile-mode run (counters are counted in trace mode, MPIDLE_PAPI_EVENTS)";
    return u;
  }
  const auto& t = *p.trace;
  const auto at = [&t](const char* event) {
    const auto it = std::find(t.papi_events.begin(), t.papi_events.end(), event);
    return it == t.papi_events.end() ? -1 : static_cast<int>(it - t.papi_events.begin());
  };
  const int ins = at("PAPI_TOT_INS"), cyc = at("PAPI_TOT_CYC");
  if (!t.papi_available || ins < 0 || cyc < 0) {
    u.missing = !t.papi_available && !t.papi_reason.empty()
                    ? "no PAPI counters: " + t.papi_reason
                    : "PAPI_TOT_INS and PAPI_TOT_CYC were not both counted";
    return u;
  }
  for (const auto& rank : t.papi_burst_totals) {
    if (static_cast<int>(rank.size()) <= std::max(ins, cyc)) continue;
    u.instructions += static_cast<double>(std::max<std::int64_t>(0, rank[ins]));
    u.cycles += static_cast<double>(std::max<std::int64_t>(0, rank[cyc]));
  }
  if (u.instructions <= 0 || u.cycles <= 0) {
    u.missing = "PAPI counted no instructions or cycles (a machine without counters reads 0)";
  }
  return u;
}

void add_counter_scalability(const model::Profile& a, const model::Profile& b, Comparison& c) {
  const UsefulCounts ca = useful_counts(a), cb = useful_counts(b);
  if (!ca.missing.empty() || !cb.missing.empty()) {
    c.counters_missing = !ca.missing.empty() ? "A: " + ca.missing : "B: " + cb.missing;
    return;
  }
  c.pop_a.instruction_scalability = c.pop_a.ipc_scalability = 1.0;
  c.pop_b.instruction_scalability = ca.instructions / cb.instructions;
  c.pop_b.ipc_scalability = (cb.instructions / cb.cycles) / (ca.instructions / ca.cycles);
}

}  // namespace

namespace {

// Mismatches between the runs, said plainly.
void note_mismatches(const model::Profile& a, const model::Profile& b, Comparison& c) {
  const auto exe_a = std::filesystem::path(a.run.executable).filename();
  const auto exe_b = std::filesystem::path(b.run.executable).filename();
  if (exe_a != exe_b) {
    c.caveats.push_back("different programs: A runs " + exe_a.string() + ", B runs " +
                        exe_b.string() + "; only callsites at the same source location match");
  } else if (a.run.args != b.run.args) {
    c.caveats.push_back("same program, different arguments: A \"" + c.label_a + "\", B \"" +
                        c.label_b + "\"");
  }
  if (a.run.ranks != b.run.ranks) {
    c.caveats.push_back(
        format("different rank counts: A has %lld ranks, B has %lld; times are "
               "sums over ranks, so compare ratios with care",
               static_cast<long long>(a.run.ranks), static_cast<long long>(b.run.ranks)));
  }
  if (a.run.mpi_library != b.run.mpi_library) {
    c.caveats.push_back("different MPI libraries: A " + a.run.mpi_library + ", B " +
                        b.run.mpi_library);
  }
}

// One run as `compare_profiles` reads it: its profile, its exact waits where it has
// them, and which side of each Pair it fills.
struct Side {
  const model::Profile& profile;
  const ExactWaits* exact;
  double Pair::*of;
};

// Per run: sums over ranks of wall, MPI, wait and computation, and POP's table.
void add_run_totals(const Side& a, const Side& b, Estimate estimate, Comparison& c) {
  for (const Side* side : {&a, &b}) {
    double unsure = 0;
    for (const auto& r : side->profile.ranks) {
      c.wall.*side->of += r.wall_s;
      c.mpi.*side->of += r.mpi_s;
      c.wait.*side->of += wait_of(r, estimate);
      if (estimate == Estimate::robust) unsure += r.estimates.wait_or_transfer_s;
    }
    if (side->exact) {
      c.wait.*side->of = side->exact->total_s;
      unsure = 0;
    }
    c.wait_or_transfer.*side->of = unsure;
  }
  c.compute = {std::max(0.0, c.wall.a - c.mpi.a), std::max(0.0, c.wall.b - c.mpi.b)};
  c.pop_a.efficiency = a.profile.efficiency;
  c.pop_b.efficiency = b.profile.efficiency;
  // Σ useful time = mean × ranks.
  const double useful_a =
      a.profile.efficiency.useful_mean_s * static_cast<double>(a.profile.ranks.size());
  const double useful_b =
      b.profile.efficiency.useful_mean_s * static_cast<double>(b.profile.ranks.size());
  c.pop_b.computation_scalability = useful_b > 0 ? useful_a / useful_b : 0.0;
  add_counter_scalability(a.profile, b.profile, c);
}

// Functions by name, by |Δtime|.
std::vector<FunctionComparison> compare_functions(const Side& a, const Side& b, Estimate estimate) {
  std::map<std::string, FunctionComparison> functions;
  for (const Side* side : {&a, &b}) {
    for (const auto& f : side->profile.functions) {
      auto& x = functions[f.name];
      x.name = f.name;
      x.calls.*side->of += static_cast<double>(f.calls);
      x.time.*side->of += f.time_s;
      if (!side->exact) x.wait.*side->of += wait_of(f, estimate);
    }
    if (!side->exact) continue;
    for (const auto& [site, wait] : side->exact->by_site) {
      auto it = functions.find(site.first);
      if (it != functions.end()) it->second.wait.*side->of += wait;
    }
  }
  std::vector<FunctionComparison> out;
  for (auto& [name, f] : functions) {
    f.processing = {f.time.a - f.wait.a, f.time.b - f.wait.b};
    out.push_back(f);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return std::abs(x.time.b - x.time.a) > std::abs(y.time.b - y.time.a);
  });
  return out;
}

// Callsites by (function, source location); several callsites of one run that
// share a location (deeper stacks) add up.
std::map<std::pair<std::string, std::string>, SiteComparison> callsites_of(const Side& a,
                                                                           const Side& b,
                                                                           Estimate estimate) {
  std::map<std::pair<std::string, std::string>, SiteComparison> sites;
  for (const Side* side : {&a, &b}) {
    const bool is_a = side == &a;
    for (const auto& row : side->profile.callsites) {
      const auto key = std::make_pair(row.function, callsite_location(row));
      auto& s = sites[key];
      s.function = row.function;
      s.location = key.second;
      (is_a ? s.in_a : s.in_b) = true;
      s.visits.*side->of += static_cast<double>(row.visits);
      s.time.*side->of += row.time_s;
      s.bytes_per_visit.*side->of += row.bytes;  // totals for now
      if (side->exact) continue;
      s.wait.*side->of += wait_of(row, estimate);
      if (estimate == Estimate::robust)
        s.wait_or_transfer.*side->of += row.estimates.wait_or_transfer_s;
    }
    if (!side->exact) continue;
    for (const auto& [key, wait] : side->exact->by_site) {
      auto it = sites.find(key);
      if (it != sites.end()) it->second.wait.*side->of += wait;
    }
  }
  return sites;
}

// A profile's callsites by (function, location) with their waiting by root cause,
// where the trace windows saw them wait often enough to stand for the rest (as
// many wait states as a calibrated key needs calls: a callsite called every 20
// steps has one or two in the windows, and their split is theirs alone).
std::map<std::pair<std::string, std::string>, analysis::WaitCauses> window_causes_of(
    const model::Profile& p) {
  std::map<std::pair<std::string, std::string>, analysis::WaitCauses> out;
  for (const auto& row : p.callsites) {
    if (row.causes.wait_states < model::kMinCalibratedCalls) continue;
    auto& c = out[{row.function, callsite_location(row)}];
    c.computation += row.causes.computation_s;
    c.communication += row.causes.latency_s + row.causes.bandwidth_s;
    c.propagated += row.causes.propagated_s;
  }
  return out;
}

// Every callsite with what dominates it (analysis/callsite_verdict.hpp), by |Δtime|.
void compare_callsites(const Side& a, const Side& b, Estimate estimate, Comparison& c) {
  // Σ over ranks of the most useful time less the mean, and MPI processing, per run.
  const double imbalance_a =
      (a.profile.efficiency.useful_max_s - a.profile.efficiency.useful_mean_s) *
      static_cast<double>(a.profile.ranks.size());
  const double imbalance_b =
      (b.profile.efficiency.useful_max_s - b.profile.efficiency.useful_mean_s) *
      static_cast<double>(b.profile.ranks.size());
  const double processing_a = c.mpi.a - c.wait.a, processing_b = c.mpi.b - c.wait.b;
  std::size_t only_a = 0, only_b = 0;
  const auto windowed_a = window_causes_of(a.profile), windowed_b = window_causes_of(b.profile);
  for (auto& [key, s] : callsites_of(a, b, estimate)) {
    s.processing = {s.time.a - s.wait.a, s.time.b - s.wait.b};
    s.bytes_per_visit = {s.visits.a > 0 ? s.bytes_per_visit.a / s.visits.a : 0,
                         s.visits.b > 0 ? s.bytes_per_visit.b / s.visits.b : 0};
    // What dominates the callsite where it costs more.
    const bool use_b = s.time.b >= s.time.a;
    const double Pair::*more = use_b ? &Pair::b : &Pair::a;
    const double Pair::*less = use_b ? &Pair::a : &Pair::b;
    analysis::WaitGrowth growth;
    growth.in_both = s.in_a && s.in_b;
    growth.wait_higher = s.wait.*more;
    growth.wait_lower = s.wait.*less;
    growth.imbalance_grew = use_b ? imbalance_b - imbalance_a : imbalance_a - imbalance_b;
    growth.processing_grew = use_b ? processing_b - processing_a : processing_a - processing_b;
    s.dominant = analysis::dominant_of(
        {s.time.*more, s.wait.*more, s.wait_or_transfer.*more, s.bytes_per_visit.*more}, growth);
    // The root causes, where the costlier run has them, say why it waited: its
    // trace's, or its windows' (a profile).
    if (const ExactWaits* exact = use_b ? b.exact : a.exact) {
      auto causes = exact->causes_by_site.find(key);
      if (causes != exact->causes_by_site.end()) {
        s.dominant = analysis::dominant_by_causes(s.dominant, causes->second.seconds);
        if (s.dominant == Dominant::waiting || s.dominant == Dominant::waiting_for_communication ||
            s.dominant == Dominant::waiting_propagated) {
          s.caused_at = where_caused(causes->second);
        }
      }
    } else if (auto w = (use_b ? windowed_b : windowed_a).find(key);
               w != (use_b ? windowed_b : windowed_a).end()) {
      s.dominant = analysis::dominant_by_causes(s.dominant, w->second);
    }
    only_a += s.in_a && !s.in_b;
    only_b += s.in_b && !s.in_a;
    c.callsites.push_back(s);
  }
  std::stable_sort(c.callsites.begin(), c.callsites.end(), [](const auto& x, const auto& y) {
    return std::abs(x.time.b - x.time.a) > std::abs(y.time.b - y.time.a);
  });
  if (!c.callsites.empty()) c.callsites.front().changed_most = true;
  if (only_a + only_b > 0) {
    c.caveats.push_back(
        format("%zu callsites only in A and %zu only in B (matched by source "
               "location and function)",
               only_a, only_b));
  }
}

}  // namespace

Comparison compare_profiles(const model::Profile& a, const model::Profile& b, Estimate estimate,
                            const ExactWaits* exact_a, const ExactWaits* exact_b) {
  Comparison c;
  const std::string estimated = std::string(estimate_name(estimate)) + " estimate";
  // A prediction's wait is the replay's, whichever estimate is asked for.
  auto source = [&](const model::Profile& p, const ExactWaits* exact) -> std::string {
    if (exact) return "trace analysis";
    return p.run.mode == "prediction" ? "predicted" : estimated;
  };
  c.wait_source_a = source(a, exact_a);
  c.wait_source_b = source(b, exact_b);
  c.label_a = label_of(a);
  c.label_b = label_of(b);
  note_mismatches(a, b, c);
  c.ranks = {static_cast<double>(a.run.ranks), static_cast<double>(b.run.ranks)};
  const Side side_a{a, exact_a, &Pair::a}, side_b{b, exact_b, &Pair::b};
  add_run_totals(side_a, side_b, estimate, c);
  // A run's waiting by root cause: its trace's, or its windows'.
  auto causes_of = [](const model::Profile& p,
                      const ExactWaits* exact) -> std::optional<analysis::WaitCauses> {
    std::map<std::pair<std::string, std::string>, analysis::WaitCauses> windowed;
    if (!exact) windowed = window_causes_of(p);
    if (exact ? exact->causes_by_site.empty() : windowed.empty()) return std::nullopt;
    analysis::WaitCauses sum;
    auto add = [&](const analysis::WaitCauses& c) {
      sum.computation += c.computation;
      sum.communication += c.communication;
      sum.propagated += c.propagated;
    };
    if (exact) {
      for (const auto& [site, causes] : exact->causes_by_site) add(causes.seconds);
    } else {
      for (const auto& [site, causes] : windowed) add(causes);
    }
    return sum;
  };
  c.causes_a = causes_of(a, exact_a);
  c.causes_b = causes_of(b, exact_b);
  c.functions = compare_functions(side_a, side_b, estimate);
  compare_callsites(side_a, side_b, estimate, c);
  return c;
}

std::string format_pop_table(const Comparison& c) {
  std::string out =
      format("\n%-32s %10s %10s\n", "POP efficiency (A: reference)",
             format("A (%.0f)", c.ranks.a).c_str(), format("B (%.0f)", c.ranks.b).c_str());
  auto row = [&out](const char* name, double a, double b) {
    out += format("%-32s %10.2f %10.2f\n", name, a, b);
  };
  const auto& a = c.pop_a.efficiency;
  const auto& b = c.pop_b.efficiency;
  row("global efficiency", c.pop_a.global(), c.pop_b.global());
  row("  parallel efficiency", a.parallel, b.parallel);
  row("    load balance", a.load_balance, b.load_balance);
  row("    communication efficiency", a.communication, b.communication);
  if (a.serialization && b.serialization) {
    row("      serialization", *a.serialization, *b.serialization);
    row("      transfer", *a.transfer, *b.transfer);
  }
  row("  computation scalability", c.pop_a.computation_scalability,
      c.pop_b.computation_scalability);
  if (c.pop_b.instruction_scalability && c.pop_b.ipc_scalability) {
    row("    instruction scalability", *c.pop_a.instruction_scalability,
        *c.pop_b.instruction_scalability);
    row("    IPC scalability", *c.pop_a.ipc_scalability, *c.pop_b.ipc_scalability);
  } else if (!c.counters_missing.empty()) {
    out += "  (no instruction or IPC scalability: " + c.counters_missing + ")\n";
  }
  return out;
}

std::string format_comparison(const Comparison& c, std::size_t top) {
  std::string out = "mpidle compare\n  A: " + c.label_a + " (wait: " + c.wait_source_a +
                    ")\n  B: " + c.label_b + " (wait: " + c.wait_source_b + ")\n";
  for (const auto& caveat : c.caveats) out += "  note: " + caveat + "\n";
  out += format("\n%-22s %12s %12s %8s\n", "sums over ranks", "A", "B", "B/A");
  auto row = [&out](const char* name, const Pair& p) {
    out += format("%-22s %12s %12s %8s\n", name, seconds(p.a).c_str(), seconds(p.b).c_str(),
                  ratio_text(p).c_str());
  };
  row("wall", c.wall);
  row("computation", c.compute);
  row("MPI", c.mpi);
  row("  wait", c.wait);
  if (c.wait_or_transfer.a > 0 || c.wait_or_transfer.b > 0) {
    row("    or transfer", c.wait_or_transfer);
  }
  row("  processing", Pair{c.mpi.a - c.wait.a, c.mpi.b - c.wait.b});
  // Which part moved the wall time most.
  const double d_compute = c.compute.b - c.compute.a;
  const double d_wait = c.wait.b - c.wait.a;
  const double d_processing = (c.mpi.b - c.wait.b) - (c.mpi.a - c.wait.a);
  // Wait in completion calls that may be the transfer they held (a profile without a
  // trace and without blocking calls of the same size to tell): never "not hardware".
  const double d_unsure = c.wait_or_transfer.b - c.wait_or_transfer.a;
  const char* part =
      std::abs(d_compute) >= std::abs(d_wait) && std::abs(d_compute) >= std::abs(d_processing)
          ? "computation: faster cores would help most"
      : std::abs(d_wait) < std::abs(d_processing)
          ? "MPI processing: the network and the MPI library decide"
      : std::abs(d_unsure) >= 0.5 * std::abs(d_wait)
          ? "waiting in MPI or the transfers that Wait calls held, which this profile cannot "
            "tell apart: trace both runs (MPIDLE_TRACE=1) to know whether the network or the load "
            "balance decides"
          : "waiting in MPI: load balance, not hardware, decides";
  // The root causes of the run that waited more, where its trace or windows have
  // them, say what made the partners late.
  const auto& causes = c.wait.b >= c.wait.a ? c.causes_b : c.causes_a;
  if (causes && std::abs(d_wait) >= std::abs(d_compute) &&
      std::abs(d_wait) >= std::abs(d_processing)) {
    const double most = std::max({causes->computation, causes->communication, causes->propagated});
    if (most > 0 && causes->communication == most) {
      part =
          "waiting in MPI for partners late because of their own communication (the root "
          "causes): the network and the MPI library decide";
    } else if (most > 0 && causes->propagated == most) {
      part =
          "waiting in MPI propagated from other waiting (the root causes): what starts it "
          "decides; see the callsites below";
    }
  }
  out += format("most of the difference (%s of wall time) is %s\n",
                seconds(std::abs(c.wall.b - c.wall.a)).c_str(), part);
  for (const auto& [label, run_causes] :
       {std::pair{"A", &c.causes_a}, std::pair{"B", &c.causes_b}}) {
    if (!*run_causes) continue;
    const auto& x = **run_causes;
    out += format("waiting in %s by root cause: computation %s, communication %s, propagated %s\n",
                  label, seconds(x.computation).c_str(), seconds(x.communication).c_str(),
                  seconds(x.propagated).c_str());
  }
  out += format_pop_table(c);

  out += format("\nfunctions by change of time\n%-20s %10s %10s %7s %10s %10s %7s %10s %10s %7s\n",
                "function", "time A", "time B", "B/A", "wait A", "wait B", "B/A", "proc A",
                "proc B", "B/A");
  for (std::size_t i = 0; i < c.functions.size() && i < top; ++i) {
    const auto& f = c.functions[i];
    out += format("%-20s %10s %10s %7s %10s %10s %7s %10s %10s %7s\n", f.name.c_str(),
                  seconds(f.time.a).c_str(), seconds(f.time.b).c_str(), ratio_text(f.time).c_str(),
                  seconds(f.wait.a).c_str(), seconds(f.wait.b).c_str(), ratio_text(f.wait).c_str(),
                  seconds(f.processing.a).c_str(), seconds(f.processing.b).c_str(),
                  ratio_text(f.processing).c_str());
  }

  out += "\ncallsites by change of time (matched by source location)\n";
  for (std::size_t i = 0; i < c.callsites.size() && i < top; ++i) {
    const auto& s = c.callsites[i];
    out += format("%s%-16s %s%s\n", s.changed_most ? ">> " : "   ", s.function.c_str(),
                  s.location.c_str(),
                  !s.in_a   ? "  (only in B)"
                  : !s.in_b ? "  (only in A)"
                            : "");
    out += format("     time %s -> %s (%s), wait %s -> %s (%s), processing %s -> %s (%s)\n",
                  seconds(s.time.a).c_str(), seconds(s.time.b).c_str(), ratio_text(s.time).c_str(),
                  seconds(s.wait.a).c_str(), seconds(s.wait.b).c_str(), ratio_text(s.wait).c_str(),
                  seconds(s.processing.a).c_str(), seconds(s.processing.b).c_str(),
                  ratio_text(s.processing).c_str());
    out += format("     %s per visit; dominated by %s%s: %s\n",
                  bytes_text(std::max(s.bytes_per_visit.a, s.bytes_per_visit.b)).c_str(),
                  dominant_name(s.dominant),
                  s.caused_at.empty() ? "" : (" (" + s.caused_at + ")").c_str(),
                  dominant_advice(s.dominant));
  }
  if (!c.callsites.empty()) {
    const auto& s = c.callsites.front();
    out += format("\n>> changed most: %s at %s, time %s (wait %s)\n", s.function.c_str(),
                  s.location.c_str(), ratio_text(s.time).c_str(), ratio_text(s.wait).c_str());
  }
  return out;
}

}  // namespace mpidle::report
