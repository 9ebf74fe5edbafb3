#include "report/text/status_text.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "report/text/text_format.hpp"
#include "report/text/text_report.hpp"

namespace mpidle::report {
namespace {

// A rank whose checkpoint and stall note are both older than this many intervals
// has gone silent: its watcher would have written a note every interval.
constexpr double kSilentIntervals = 2.5;
// A checkpoint counts as on time up to its interval and this share more (the
// watcher's grace, and a call that ends a little after the time).
constexpr double kLateShare = 0.5;

}  // namespace

std::string duration_text(double s) {
  s = std::max(0.0, s);
  const auto total = static_cast<long long>(std::llround(s));
  if (total < 60) return std::to_string(total) + " s";
  if (total < 3600) return std::to_string(total / 60) + " min " + std::to_string(total % 60) + " s";
  if (total < 86400) {
    return std::to_string(total / 3600) + " h " + std::to_string(total % 3600 / 60) + " min";
  }
  return std::to_string(total / 86400) + " d " + std::to_string(total % 86400 / 3600) + " h";
}

RankState rank_state(const model::CheckpointRank* c, const model::StallNote* note,
                     double now_unix_s) {
  RankState state;
  if (!c && !note) {
    state.kind = RankState::none;
    state.text = "no checkpoint";
    return state;
  }
  if (c && c->ended != "checkpoint") {
    state.kind = RankState::ended;
    state.text = "ended (" + c->ended + ") " + duration_text(now_unix_s - c->written_unix_s) +
                 " ago, without MPI_Finalize";
    return state;
  }
  const double interval = c && c->interval_s > 0 ? c->interval_s : 0;
  const double checkpoint_s = c ? c->written_unix_s : 0;
  if (note && note->as_of_unix_s > checkpoint_s) {
    const double last_word = note->as_of_unix_s;
    std::vector<std::string> in;
    for (const auto& t : note->threads) {
      if (!t.empty() && std::find(in.begin(), in.end(), t) == in.end()) in.push_back(t);
    }
    std::string where = in.empty() ? "outside MPI (computing)" : "in " + in.front();
    for (std::size_t i = 1; i < in.size(); ++i) where += ", " + in[i];
    if (note->threads.size() > 1 && !in.empty()) where += " (threads)";
    state.kind = RankState::stalled;
    state.text = where + "; no MPI call ended for " +
                 duration_text(now_unix_s - note->no_call_ended_since_unix_s);
    if (interval > 0 && now_unix_s - last_word > kSilentIntervals * interval) {
      state.kind = RankState::silent;
      state.text += "; silent for " + duration_text(now_unix_s - last_word) +
                    " (the process is gone: killed, or its node)";
    }
    return state;
  }
  const double age = now_unix_s - checkpoint_s;
  if (interval <= 0 || age <= interval * (1 + kLateShare)) {
    state.kind = RankState::on_time;
    state.text = "running (checkpoint " + duration_text(age) + " ago)";
  } else if (age > kSilentIntervals * interval) {
    state.kind = RankState::silent;
    state.text = "silent for " + duration_text(age) +
                 " (no checkpoint or stall note since: the process is gone, killed or its node)";
  } else {
    state.kind = RankState::on_time;
    state.text = "running (checkpoint late by " + duration_text(age - interval) + ")";
  }
  return state;
}

std::string format_status(const model::Profile& p, const std::map<int, model::StallNote>& notes,
                          double now_unix_s, const StatusOptions& o) {
  const model::CheckpointsSection& c = *p.checkpoints;
  const Estimate e = estimate_of(p);
  std::string out = "mpidle status of " + p.run.executable;
  for (const auto& a : p.run.args) out += " " + a;
  out += "\n";
  double newest = 0, interval = 0;
  for (const auto& r : c.ranks) {
    newest = std::max(newest, r.written_unix_s);
    interval = std::max(interval, r.interval_s);
  }
  out += format("  %lld ranks; started %s; no MPI_Finalize yet (running, hung or killed)\n",
                static_cast<long long>(c.ranks_expected), p.run.start.c_str());
  out += format("  latest checkpoint %s ago (%s)%s\n", duration_text(now_unix_s - newest).c_str(),
                c.newest.c_str(),
                interval > 0 ? (", one every " + duration_text(interval)).c_str() : "");
  double wall = 0, mpi = 0, wait = 0;
  for (const auto& r : p.ranks) {
    wall += r.wall_s;
    mpi += r.mpi_s;
    wait += wait_of(r, e);
  }
  out += format("  up to then: %s per rank; MPI %.1f%% of rank time, wait %.1f%% (%s estimate)\n",
                seconds(p.run.wall_s).c_str(), percent(mpi, wall), percent(wait, wall),
                estimate_name(e));
  if (!c.missing_ranks.empty()) out += "  no checkpoint from ranks " + c.missing_ranks + "\n";
  for (const auto& u : c.unreadable) out += "  unreadable: " + u + "\n";

  out += format("\nTop callsites by wait\n  %-18s %-44s %9s %10s %10s\n", "function", "location",
                "visits", "time", "wait");
  const auto order = callsites_by_wait(p, e);
  for (std::size_t i = 0; i < order.size() && i < o.top; ++i) {
    std::string location = callsite_location(*order[i]);
    if (location.size() > 44) location = location.substr(0, 41) + "...";
    out += format("  %-18s %-44s %9llu %10s %10s\n", order[i]->function.c_str(), location.c_str(),
                  static_cast<unsigned long long>(order[i]->visits),
                  seconds(order[i]->time_s).c_str(), seconds(wait_of(*order[i], e)).c_str());
  }

  // Every rank's state; the ranks that are not simply running come first.
  std::map<int, const model::CheckpointRank*> by_rank;
  for (const auto& r : c.ranks) by_rank[r.rank] = &r;
  struct Row {
    int rank;
    RankState state;
  };
  std::vector<Row> rows;
  for (int r = 0; r < c.ranks_expected; ++r) {
    const auto it = by_rank.find(r);
    const auto note = notes.find(r);
    rows.push_back({r, rank_state(it == by_rank.end() ? nullptr : it->second,
                                  note == notes.end() ? nullptr : &note->second, now_unix_s)});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return (a.state.kind == RankState::on_time) < (b.state.kind == RankState::on_time);
  });
  out += "\nRanks\n";
  std::map<RankState::Kind, std::size_t> not_shown;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i < o.ranks) {
      out += format("  rank %-6d %s\n", rows[i].rank, rows[i].state.text.c_str());
    } else {
      ++not_shown[rows[i].state.kind];
    }
  }
  static const char* kNames[] = {"ended", "stalled", "running", "silent", "without checkpoint"};
  for (const auto& [kind, n] : not_shown) {
    out += format("  ... and %zu more %s\n", n, kNames[kind]);
  }
  return out;
}

}  // namespace mpidle::report
