#include "report/html/html_timeline.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "compress/summary.hpp"
#include "compress/summary_json.hpp"
#include "model/trace_file.hpp"
#include "report/export/trace_times.hpp"
#include "report/html/html_page.hpp"
#include "report/text/text_format.hpp"

namespace mpidle::report {
namespace {

using html::escape;

constexpr std::uint64_t kWindowSymbols = 96;  // about 48 calls per lane
constexpr std::size_t kMaxCallsPerLane = 400;

std::string section(const std::string& body) {
  return "<section id=\"timeline\"><h2>Timeline of the top loop</h2>\n" + body + "</section>\n";
}

std::string note(const std::string& why) {
  return section("<p class=\"note\">" + escape(why) + "</p>\n");
}

// The top loop: a top-level loop element of some group, with the most time per rank.
struct TopLoop {
  std::size_t group = 0, element = 0;
  std::uint64_t first_symbol = 0;  // where the loop begins in the group's symbol stream
  std::uint64_t body_symbols = 0;  // symbols per iteration
  std::uint64_t iterations = 0;
  double per_rank_s = 0;
};

std::optional<TopLoop> top_loop(const compress::SummarySet& set) {
  std::optional<TopLoop> best;
  for (std::size_t g = 0; g < set.groups.size(); ++g) {
    const auto& s = set.groups[g].summary;
    const auto length = compress::expanded_lengths(s);
    const double ranks = std::max<double>(1, static_cast<double>(set.groups[g].ranks.size()));
    std::uint64_t at = 0;
    for (std::size_t e = 0; e < s.sequence.size(); ++e) {
      const auto& node = s.nodes[s.sequence[e].node];
      const double per_rank = static_cast<double>(s.sequence[e].ns) * 1e-9 / ranks;
      if (node.kind == compress::NodeKind::loop && node.iterations > 1 &&
          (!best || per_rank > best->per_rank_s)) {
        best = TopLoop{g, e, at, length[node.a], node.iterations, per_rank};
      }
      at += length[s.sequence[e].node];
    }
  }
  return best;
}

const char* call_class(model::TraceRole role) {
  return role == model::TraceRole::collective || role == model::TraceRole::icollective
             ? "collective"
             : "processing";
}

}  // namespace

namespace {

// Lanes: every rank up to 16, else the loop's first rank and others spread evenly;
// within the memory budget, the loop's own rank first, then the others in order.
// Empty, with `why`, where even the first rank's calls are too many.
std::set<std::size_t> timeline_lanes(const model::Profile& p, std::int32_t first_rank,
                                     std::string& why) {
  const std::size_t ranks = p.ranks.size();
  std::set<std::size_t> lanes;
  if (first_rank >= 0 && static_cast<std::size_t>(first_rank) < ranks)
    lanes.insert(static_cast<std::size_t>(first_rank));
  for (std::size_t i = 0; lanes.size() < std::min(ranks, kMaxTimelineLanes); ++i) {
    lanes.insert(ranks <= kMaxTimelineLanes ? i : i * ranks / (kMaxTimelineLanes - 1));
  }
  const auto& calls_by_rank = p.trace->events_by_rank;
  auto calls_of = [&](std::size_t position) {
    return position < calls_by_rank.size() ? calls_by_rank[position] : 0;
  };
  const auto first_position = static_cast<std::size_t>(std::max(first_rank, 0));
  if (calls_of(first_position) > kMaxTimelineCalls) {
    why = "Rank " + std::to_string(first_rank) + "'s " + std::to_string(calls_of(first_position)) +
          " calls are more than the timeline reads (" + std::to_string(kMaxTimelineCalls) +
          "); mpidle export --chrome --window shows any stretch of the trace in a viewer.";
    return {};
  }
  std::uint64_t budget = kMaxTimelineCalls - calls_of(first_position);
  for (auto it = lanes.begin(); it != lanes.end();) {
    if (*it == first_position) {
      ++it;
    } else if (calls_of(*it) <= budget) {
      budget -= calls_of(*it);
      ++it;
    } else {
      it = lanes.erase(it);
    }
  }
  return lanes;
}

// The iterations shown, in the middle of the loop where start-up is over, and
// their span on the first rank's clock. `why` says what does not fit, if anything.
struct ShownIterations {
  std::uint64_t first = 0, count = 0;  // [first, first + count), from 0
  std::int64_t start = 0, end = 0;
};

ShownIterations shown_iterations(const TopLoop& loop, const TraceTimes& times,
                                 std::size_t own_position, const std::vector<std::size_t>& calls,
                                 std::string& why) {
  const std::uint64_t symbols = 2 * static_cast<std::uint64_t>(calls.size());
  ShownIterations shown;
  shown.first = loop.iterations >= 3 ? loop.iterations / 2 : 0;
  shown.count =
      std::clamp<std::uint64_t>(kWindowSymbols / std::max<std::uint64_t>(loop.body_symbols, 1), 1,
                                loop.iterations - shown.first);
  const std::uint64_t begin_symbol = loop.first_symbol + shown.first * loop.body_symbols;
  const std::uint64_t last_symbol = begin_symbol + shown.count * loop.body_symbols - 1;
  if (last_symbol >= symbols) {
    why = "The loop summary reaches past the trace.";
    return shown;
  }
  // Symbol 2k is the burst before call k, 2k + 1 the call itself.
  const std::size_t begin_call = begin_symbol / 2, last_call = last_symbol / 2;
  shown.start = begin_symbol % 2 == 1 ? times.time(own_position, calls[begin_call], false)
                : begin_call > 0      ? times.time(own_position, calls[begin_call - 1], true)
                                      : times.time(own_position, calls[begin_call], false);
  shown.end = last_symbol % 2 == 1 ? times.time(own_position, calls[last_call], true)
                                   : times.time(own_position, calls[last_call], false);
  if (shown.end <= shown.start) why = "The top loop's iterations take no time in the trace.";
  return shown;
}

// One lane per rank read, its calls within [start, end] as rectangles, and the axis.
std::string timeline_svg(const model::Trace& trace, const std::set<std::size_t>& lanes,
                         const TraceTimes& times, std::int64_t start, std::int64_t end) {
  constexpr int kLabel = 110, kWidth = 760, kLane = 16, kGap = 6, kTop = 4;
  const double span = static_cast<double>(end - start);
  auto x_of = [&](std::int64_t t) {
    return kLabel + static_cast<double>(std::clamp(t, start, end) - start) / span * kWidth;
  };
  const int lanes_height = static_cast<int>(lanes.size()) * (kLane + kGap);
  std::string svg = format("<svg class=\"timeline\" width=\"%d\" height=\"%d\" role=\"img\">\n",
                           kLabel + kWidth + 40, kTop + lanes_height + 28);
  int y = kTop;
  for (const std::size_t position : lanes) {
    const auto& rank = trace.ranks[position];
    std::string rects;
    std::size_t drawn = 0;
    for (std::size_t k = 0; k < rank.records.size() && drawn < kMaxCallsPerLane; ++k) {
      const auto& r = rank.records[k];
      if (r.extra != 0) continue;
      const std::int64_t enter = times.time(position, k, false),
                         exit = times.time(position, k, true);
      if (exit <= start || enter >= end) continue;
      const std::string function =
          r.function < trace.functions.size() ? trace.functions[r.function] : "?";
      const double x = x_of(enter);
      rects += format(
          "<rect class=\"call %s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
          "data-function=\"%s\" data-enter-ns=\"%lld\" data-exit-ns=\"%lld\"><title>%s, %s"
          "</title></rect>",
          call_class(r.role), x, y, std::max(0.5, x_of(exit) - x), kLane, escape(function).c_str(),
          static_cast<long long>(enter), static_cast<long long>(exit), escape(function).c_str(),
          seconds(static_cast<double>(exit - enter) * 1e-9).c_str());
      ++drawn;
    }
    svg += format("<g class=\"lane\" data-rank=\"%d\" data-calls=\"%zu\">", rank.rank, drawn);
    svg += format("<text x=\"0\" y=\"%d\">rank %d</text>", y + 12, rank.rank);
    svg += format("<rect class=\"compute\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", kLabel,
                  y + kLane / 2 - 1, kWidth, 2);
    svg += rects + "</g>\n";
    y += kLane + kGap;
  }
  // Time axis, from the first shown iteration's start.
  return svg +
         html::time_axis(kLabel, kWidth, y, span * 1e-9, html::axis_ticks(span * 1e-9, 6), true) +
         "</svg>\n";
}

// The loop's text as the summary writes it, cut at 200 characters.
std::string loop_text(const nlohmann::json& summary, const TopLoop& loop) {
  std::string text;
  const auto& groups = summary.at("groups");
  if (loop.group < groups.size() && groups[loop.group].contains("sequence") &&
      loop.element < groups[loop.group]["sequence"].size()) {
    text = groups[loop.group]["sequence"][loop.element].value("text", "");
    if (text.size() > 200) text = text.substr(0, 200) + "\u2026";
  }
  return text;
}

}  // namespace

std::string loop_timeline_section(const model::Profile& p,
                                  const std::filesystem::path& run_directory,
                                  const nlohmann::json& summary) {
  if (!p.trace) return "";
  if (!summary.is_object()) return note("This trace run has no loop summary.");
  if (p.trace->lost_records > 0) {
    return note(std::to_string(p.trace->lost_records) +
                " trace records were lost: the loop summary and the trace no longer line up.");
  }
  compress::SummarySet set;
  try {
    set = compress::summary_from_json(summary);
  } catch (const model::ProfileError& e) {
    return note(std::string("The loop summary cannot be read: ") + e.what());
  }
  const auto loop = top_loop(set);
  if (!loop) return note("The loop summary has no loop.");
  const auto& group = set.groups[loop->group];
  if (group.ranks.empty()) return note("The top loop's group has no ranks.");
  const std::int32_t first_rank = group.ranks.front();
  const std::size_t ranks = p.ranks.size();
  std::string why;
  const std::set<std::size_t> lanes = timeline_lanes(p, first_rank, why);
  if (!why.empty()) return note(why);
  model::Trace trace;
  try {
    trace = model::read_trace_ranks(
        run_directory / p.trace->file,
        [&](std::size_t position, std::size_t) { return lanes.count(position) > 0; });
  } catch (const model::TraceError& e) {
    return note(std::string("The trace cannot be read: ") + e.what());
  }
  const auto own = std::find_if(trace.ranks.begin(), trace.ranks.end(),
                                [&](const auto& r) { return r.rank == first_rank; });
  if (trace.ranks.size() != ranks || own == trace.ranks.end()) {
    return note("The trace does not hold the ranks the profile names.");
  }
  const std::size_t own_position = static_cast<std::size_t>(own - trace.ranks.begin());
  // The first rank's calls (a Waitall's further records are part of its call).
  std::vector<std::size_t> calls;
  for (std::size_t k = 0; k < own->records.size(); ++k) {
    if (own->records[k].extra == 0) calls.push_back(k);
  }
  const std::uint64_t symbols = 2 * static_cast<std::uint64_t>(calls.size());
  // A summary cut short left its last events out; one that folded them has them all.
  if (group.summary.dropped_events > 0 ? symbols < group.summary.events
                                       : symbols != group.summary.events) {
    return note("The trace and the loop summary disagree on rank " + std::to_string(first_rank) +
                "'s calls.");
  }
  const TraceTimes times(trace);
  const ShownIterations shown = shown_iterations(*loop, times, own_position, calls, why);
  if (!why.empty()) return note(why);
  const std::string which =
      shown.count == 1
          ? format("Iteration %llu", static_cast<unsigned long long>(shown.first + 1))
          : format("Iterations %llu\u2013%llu", static_cast<unsigned long long>(shown.first + 1),
                   static_cast<unsigned long long>(shown.first + shown.count));
  return section(
      format("<p data-first-iteration=\"%llu\" data-iterations=\"%llu\" data-start-ns=\"%lld\" "
             "data-end-ns=\"%lld\">",
             static_cast<unsigned long long>(shown.first + 1),
             static_cast<unsigned long long>(shown.count), static_cast<long long>(shown.start),
             static_cast<long long>(shown.end)) +
      escape(which) + " of " + std::to_string(loop->iterations) + " of the loop <code>" +
      escape(loop_text(summary, *loop)) + "</code> (" + seconds(loop->per_rank_s) +
      " per rank), as rank " + std::to_string(first_rank) + " ran them; " +
      (times.synchronized() ? "synchronized times"
                            : "raw clocks: this trace was not synchronized") +
      (lanes.size() < ranks ? format(", %zu of %zu ranks", lanes.size(), ranks) : std::string()) +
      ".</p>\n" +
      html::legend({{"compute", "outside MPI"},
                    {"processing", "point-to-point and other MPI"},
                    {"collective", "collective"}}) +
      timeline_svg(trace, lanes, times, shown.start, shown.end));
}

}  // namespace mpidle::report
