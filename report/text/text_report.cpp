#include "report/text/text_report.hpp"

#include "report/text/text_format.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace mpidle::report {
namespace {

struct Totals {
  double wall = 0, mpi = 0, wait = 0, first_call_wait = 0;
};

Totals totals(const model::Profile& p, Estimate e) {
  Totals t;
  for (const auto& r : p.ranks) {
    t.wall += r.wall_s;
    t.mpi += r.mpi_s;
    t.wait += wait_of(r, e);
    t.first_call_wait += r.first_call_wait_s;
  }
  return t;
}

// A run merged from its ranks' checkpoints: which ranks, as of when, which none.
std::string checkpoints_lines(const model::CheckpointsSection& c) {
  std::string out = format(
      "  checkpoints: this run did not reach MPI_Finalize; merged from the latest\n"
      "  checkpoint of %lld of %lld ranks, written %s to %s;\n"
      "  each rank's calls up to then, with its own minima (no other rank could be asked)\n",
      static_cast<long long>(c.ranks_found), static_cast<long long>(c.ranks_expected),
      c.oldest.c_str(), c.newest.c_str());
  if (!c.missing_ranks.empty()) out += "  no checkpoint from ranks " + c.missing_ranks + "\n";
  for (const auto& u : c.unreadable) out += "  unreadable: " + u + "\n";
  return out + "\n";
}

}  // namespace

std::vector<const model::CallsiteRow*> callsites_by_wait(const model::Profile& p, Estimate e) {
  std::vector<const model::CallsiteRow*> order;
  for (const auto& c : p.callsites) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(),
                   [e](const auto* a, const auto* b) { return wait_of(*a, e) > wait_of(*b, e); });
  return order;
}

std::string regions_text(const model::Profile& p, Estimate e) {
  if (p.regions.empty()) return {};
  std::string out = "\nRegions (nested ones included in their parent; POP efficiency per region)\n";
  out += format("  %-28s %7s %10s %10s %10s %6s %6s %6s\n", "region", "visits", "wall max", "MPI",
                "wait", "LB", "comm", "par");
  for (const auto& r : p.regions) {
    const auto slash = r.path.rfind('/');
    const std::string name = std::string(2 * static_cast<std::size_t>(r.depth - 1), ' ') +
                             (slash == std::string::npos ? r.path : r.path.substr(slash + 1));
    out += format("  %-28s %7llu %10s %10s %10s %6.2f %6.2f %6.2f\n", name.c_str(),
                  static_cast<unsigned long long>(r.visits), seconds(r.wall_max_s).c_str(),
                  seconds(r.mpi_s).c_str(), seconds(wait_of(r, e)).c_str(),
                  r.efficiency.load_balance, r.efficiency.communication, r.efficiency.parallel);
  }
  out += "  wall max: the longest time any rank spent inside; MPI and wait: all ranks\n";
  return out;
}

std::string efficiency_line(const model::PopEfficiency& e) {
  std::string out =
      format("  efficiency (POP): parallel %.2f = load balance %.2f x communication %.2f",
             e.parallel, e.load_balance, e.communication);
  if (e.serialization && e.transfer) {
    out += format(" (= serialization %.2f x transfer %.2f)", *e.serialization, *e.transfer);
  }
  return out + "\n";
}

Estimate estimate_of(const model::Profile& profile) {
  return parse_estimate(profile.run.wait_estimate).value_or(Estimate::robust);
}

std::optional<Estimate> parse_estimate(const std::string& name) {
  if (name == "calibrated") return Estimate::calibrated;
  if (name == "robust") return Estimate::robust;
  if (name == "minimum" || name == "local") return Estimate::local;
  if (name == "global") return Estimate::global;
  return std::nullopt;
}

const char* estimate_name(Estimate e) {
  switch (e) {
    case Estimate::global:
      return "global";
    case Estimate::local:
      return "minimum";
    case Estimate::calibrated:
      return "calibrated";
    case Estimate::robust:
      break;
  }
  return "robust";
}

std::string estimate_label(const model::Profile& p, Estimate e) {
  std::string label = std::string(estimate_name(e)) + " estimate";
  if (e != Estimate::calibrated || !p.calibration) return label;
  if (p.calibration->source == "trace") return label + " from the whole trace";
  const auto n = p.calibration->windows;
  return "calibrated (" + std::to_string(n) + (n == 1 ? " window)" : " windows)");
}

std::string estimate_description(Estimate e) {
  switch (e) {
    case Estimate::global:
      return "time above the fastest call of any rank with the same (function, message size "
             "class, communicator size)";
    case Estimate::local:
      return "time above each rank's fastest call with the same (function, message size "
             "class, peer, communicator size): the minimum method";
    case Estimate::calibrated:
      return "time above what a call costs without waiting, as the exact analysis of short "
             "trace windows measured it per function, message size class and communicator "
             "size (the robust baseline where the windows saw too few calls)";
    case Estimate::robust:
      break;
  }
  return "time above the cost of a call that did not wait (robust baseline over all ranks, per "
         "function, message size class and communicator size) in calls that can wait";
}

std::string callsite_location(const model::CallsiteRow& c) {
  return model::innermost_location(c.frames);
}

std::string format_report(const model::Profile& p, const ReportOptions& o) {
  const Estimate e = o.estimate;
  const Totals t = totals(p, e);
  std::string out;
  out += format("mpidle profile of %s", p.run.executable.c_str());
  for (const auto& a : p.run.args) out += " " + a;
  out += "\n";
  std::string hosts;
  for (const auto& h : p.run.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
  out += format("  %lld ranks on %s; %s; started %s; wall %s\n",
                static_cast<long long>(p.run.ranks), hosts.c_str(), p.run.mpi_library.c_str(),
                p.run.start.c_str(), seconds(p.run.wall_s).c_str());
  out += format(
      "  timer %s (resolution %s); callsite depth %lld; profiler overhead ~%s (%.3f%%), "
      "set-up %s in MPI_Init or MPI_Session_init (not in the wall time)\n",
      p.run.timer.c_str(), seconds(p.run.timer_resolution_s).c_str(),
      static_cast<long long>(p.run.callsite_depth), seconds(p.run.overhead_total_s).c_str(),
      100 * p.run.overhead_fraction, seconds(p.run.setup_s).c_str());
  out += format("  wait (%s estimate) = %s\n", estimate_name(e), estimate_description(e).c_str());
  out += efficiency_line(p.efficiency) + "\n";
  if (p.checkpoints) {
    out += checkpoints_lines(*p.checkpoints);
  } else if (p.run.ended != "MPI_Finalize") {
    out += format(
        "  partial profile: rank %lld ended without MPI_Finalize (%s); it holds this rank's "
        "calls\n  up to then, with its own minima (no other rank could be asked)\n\n",
        p.ranks.empty() ? -1LL : static_cast<long long>(p.ranks.front().rank), p.run.ended.c_str());
  }
  if (p.rank_matrix_missing) {
    out +=
        "  note: callsite_ranks.bin is missing or unreadable: no per-rank breakdown of "
        "callsites\n\n";
  }

  out += format(
      "Summary: MPI %s (%.1f%% of rank time), wait %s (%.1f%% of rank time, %.1f%% of MPI)\n\n",
      seconds(t.mpi).c_str(), percent(t.mpi, t.wall), seconds(t.wait).c_str(),
      percent(t.wait, t.wall), percent(t.wait, t.mpi));

  out += "Ranks\n";
  out += format("  %5s  %-16s %10s %10s %10s %7s %12s %10s\n", "rank", "host", "wall", "MPI",
                "wait", "wait%", "first-call", "memory");
  for (const auto& r : p.ranks) {
    const double w = wait_of(r, e);
    out +=
        format("  %5lld  %-16s %10s %10s %10s %6.1f%% %12s %10s\n", static_cast<long long>(r.rank),
               r.host.c_str(), seconds(r.wall_s).c_str(), seconds(r.mpi_s).c_str(),
               seconds(w).c_str(), percent(w, r.wall_s), seconds(r.first_call_wait_s).c_str(),
               bytes_text(static_cast<double>(r.memory_bytes)).c_str());
  }
  if (t.wait > 0 && t.first_call_wait > 0.1 * t.wait && e == Estimate::local) {
    out += format(
        "  note: %s (%.0f%%) of the wait is in the first call of a function on each rank;\n"
        "        that is mostly startup skew (ranks leaving MPI_Init at different times).\n",
        seconds(t.first_call_wait).c_str(), percent(t.first_call_wait, t.wait));
  }
  std::uint64_t dropped = 0;
  for (const auto& r : p.ranks) dropped += r.dropped_calls;
  if (dropped > 0) {
    out += format("  note: %llu calls were not recorded (full table; raise MPIDLE_TABLE_ENTRIES)\n",
                  static_cast<unsigned long long>(dropped));
  }

  out += regions_text(p, e);

  if (p.trace) {
    const auto& t = *p.trace;
    out += format("\nTrace: %llu events in %s (", static_cast<unsigned long long>(t.events),
                  t.file.c_str());
    for (std::size_t r = 0; r < t.events_by_rank.size(); ++r) {
      out += format("%s%llu", r ? ", " : "", static_cast<unsigned long long>(t.events_by_rank[r]));
    }
    out += format(" per rank), %llu chunks spilled\n", static_cast<unsigned long long>(t.spills));
    if (const auto lost = lost_records_text(p); !lost.empty()) out += "  warning: " + lost + "\n";
    const auto largest =
        std::max_element(p.ranks.begin(), p.ranks.end(), [](const auto& a, const auto& b) {
          return a.finalize_memory_bytes < b.finalize_memory_bytes;
        });
    if (largest != p.ranks.end() && largest->finalize_memory_bytes > 0) {
      out +=
          format("  the ranks' memory includes the trace finalize's peak (at most %s, rank %lld)\n",
                 bytes_text(static_cast<double>(largest->finalize_memory_bytes)).c_str(),
                 static_cast<long long>(largest->rank));
    }
    if (dropped > 0) {
      out += format("  the trace also holds the %llu calls the full call table did not count\n",
                    static_cast<unsigned long long>(dropped));
    }
    if (!t.papi_events.empty() && !t.papi_available) {
      out += "  no PAPI counters: " + t.papi_reason + "\n";
    }
    for (std::size_t r = 0; t.papi_available && r < t.papi_burst_totals.size(); ++r) {
      out += format("  rank %zu compute bursts:", r);
      for (std::size_t e = 0; e < t.papi_events.size() && e < t.papi_burst_totals[r].size(); ++e) {
        out += format(" %s %lld", t.papi_events[e].c_str(),
                      static_cast<long long>(t.papi_burst_totals[r][e]));
      }
      out += "\n";
    }
  }
  if (p.sync) {
    const auto& s = *p.sync;
    out += format(
        "Clock synchronization: clock-condition violations %llu raw, %llu after offset "
        "interpolation, %llu after the controlled logical clock (gamma %g, latency %s)\n"
        "  %llu events moved, max shift %s, mean shift %s\n",
        static_cast<unsigned long long>(s.violations_raw),
        static_cast<unsigned long long>(s.violations_before),
        static_cast<unsigned long long>(s.violations_after), s.gamma,
        seconds(s.min_latency_s).c_str(), static_cast<unsigned long long>(s.events_moved),
        seconds(s.max_shift_s).c_str(), seconds(s.mean_shift_s).c_str());
    out += format("  %llu messages matched, %llu cancelled\n",
                  static_cast<unsigned long long>(s.messages),
                  static_cast<unsigned long long>(s.cancelled));
    if (!s.clock_reason.empty()) {
      out += "  clocks: " + s.clock_reason + "; latency: " + s.latency_reason + "\n";
    }
    if (s.unmatched_sends + s.unmatched_receives > 0) {
      out += format(
          "  WARNING: %llu sends and %llu receives found no partner in the trace; messages "
          "after them may be paired wrongly, and trace-based waits are not exact\n",
          static_cast<unsigned long long>(s.unmatched_sends),
          static_cast<unsigned long long>(s.unmatched_receives));
    }
  }

  out += format("\nTop callsites by wait\n  %4s  %-18s %-44s %9s %10s %10s %6s\n", "id", "function",
                "location", "visits", "time", "wait", "wait%");
  const auto order = callsites_by_wait(p, e);
  for (std::size_t i = 0; i < order.size() && i < o.top; ++i) {
    const auto& c = *order[i];
    std::string location = callsite_location(c);
    if (location.size() > 44) location = location.substr(0, 41) + "...";
    out += format("  %4lld  %-18s %-44s %9llu %10s %10s %5.1f%%\n", static_cast<long long>(c.id),
                  c.function.c_str(), location.c_str(), static_cast<unsigned long long>(c.visits),
                  seconds(c.time_s).c_str(), seconds(wait_of(c, e)).c_str(),
                  percent(wait_of(c, e), c.time_s));
    for (std::size_t f = 1; f < c.frames.size(); ++f) {
      model::CallsiteRow caller;
      caller.frames = {c.frames[f]};
      out += format("  %4s  %-18s <- %s\n", "", "", callsite_location(caller).c_str());
    }
  }

  out += format("\nFunctions\n  %-24s %10s %10s %10s %6s %12s\n", "function", "calls", "time",
                "wait", "wait%", "bytes");
  std::size_t shown = 0;
  for (const auto& f : p.functions) {
    if (shown++ >= o.top) break;
    const double w = wait_of(f, e);
    out += format("  %-24s %10llu %10s %10s %5.1f%% %12s\n", f.name.c_str(),
                  static_cast<unsigned long long>(f.calls), seconds(f.time_s).c_str(),
                  seconds(w).c_str(), percent(w, f.time_s), bytes_text(f.bytes).c_str());
  }
  return out;
}

std::string format_summary(const model::Profile& p, const std::string& where) {
  const Estimate e = estimate_of(p);
  const Totals t = totals(p, e);
  std::string out = format("mpidle: profile in %s\n", where.c_str());
  // MPI and wait are the ranks' mean, so they compare with the run's wall time (their
  // sums over ranks read as more than the wall time).
  const double ranks = p.ranks.empty() ? 1.0 : static_cast<double>(p.ranks.size());
  out += format("  %lld ranks, wall %s; per rank: MPI %s (%.1f%%), wait %s (%.1f%%, %s)\n",
                static_cast<long long>(p.run.ranks), seconds(p.run.wall_s).c_str(),
                seconds(t.mpi / ranks).c_str(), percent(t.mpi, t.wall),
                seconds(t.wait / ranks).c_str(), percent(t.wait, t.wall),
                estimate_label(p, e).c_str());
  const model::RankRow* worst = nullptr;
  for (const auto& r : p.ranks) {
    const double w = wait_of(r, e);
    const double best = worst ? wait_of(*worst, e) : -1;
    if (w > best) worst = &r;
  }
  if (worst) {
    const double w = wait_of(*worst, e);
    out +=
        format("  most waiting rank: %lld, %s (%.1f%% of its wall time)\n",
               static_cast<long long>(worst->rank), seconds(w).c_str(), percent(w, worst->wall_s));
  }
  const auto order = callsites_by_wait(p, e);
  if (!order.empty()) {
    out += format("  top callsite: %s at %s, %s wait\n", order[0]->function.c_str(),
                  callsite_location(*order[0]).c_str(), seconds(wait_of(*order[0], e)).c_str());
  }
  out += format("  details: mpidle report %s\n", where.c_str());
  return out;
}

std::string lost_records_text(const model::Profile& profile) {
  if (!profile.trace || profile.trace->lost_records == 0) return "";
  return std::to_string(profile.trace->lost_records) +
         " trace records were lost during the run (their spill file could not be written): "
         "the trace and every result drawn from it are incomplete";
}

}  // namespace mpidle::report
