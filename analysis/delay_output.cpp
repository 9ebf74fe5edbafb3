#include "analysis/delay_output.hpp"

#include <algorithm>

#include "model/json_fields.hpp"

namespace mpidle::analysis {
namespace {

using nlohmann::json;

// A place in the trace's tables as analysis.json names callsites.
json place(const model::Trace& trace, std::uint32_t callsite, std::uint32_t function) {
  const auto& frames = callsite < trace.callsites.size() ? trace.callsites[callsite].frames
                                                         : std::vector<model::Frame>{};
  return {{"function", function < trace.functions.size() ? trace.functions[function] : "?"},
          {"location", model::innermost_location(frames)}};
}

// The largest first, `top` of them, ties by key.
template <typename Key>
std::vector<std::pair<double, Key>> largest(const std::map<Key, double>& of, std::size_t top) {
  std::vector<std::pair<double, Key>> rows;
  for (const auto& [key, seconds] : of) rows.emplace_back(seconds, key);
  top = std::min(top, rows.size());
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(top), rows.end(),
                    [](const auto& a, const auto& b) {
                      return a.first > b.first || (a.first == b.first && a.second < b.second);
                    });
  rows.resize(top);
  return rows;
}

// Where a callsite's computation and communication causes were: the places and ranks
// of the delays that caused most of it.
json delay_places_json(const model::Trace& trace, const WaitRootCauses& w) {
  json rows = json::array();
  for (const auto& [seconds, key] : largest(w.delay_places, kTopCausePlaces)) {
    const auto& [kind, callsite, function] = key;
    json row = place(trace, callsite, function);
    row["kind"] = delay_kind_key(static_cast<DelayKind>(kind));
    row["wait_s"] = seconds;
    rows.push_back(std::move(row));
  }
  return rows;
}

json delay_ranks_json(const model::Trace& trace, const WaitRootCauses& w) {
  json rows = json::array();
  for (const auto& [seconds, position] : largest(w.delay_ranks, kTopDelayRanks)) {
    rows.push_back({{"rank", trace.ranks.at(position).rank}, {"wait_s", seconds}});
  }
  return rows;
}

}  // namespace

json root_causes_json(const model::Trace& trace, const DelayAnalysis& d) {
  std::vector<const WaitRootCauses*> waits;
  for (const auto& w : d.waits) waits.push_back(&w);
  std::stable_sort(waits.begin(), waits.end(),
                   [](const auto* a, const auto* b) { return a->wait_s > b->wait_s; });
  json callsites = json::array();
  double unexplained = 0;
  for (const auto* w : waits) {
    unexplained += w->unexplained_s;
    std::vector<std::pair<double, std::pair<std::uint32_t, std::uint32_t>>> from;
    for (const auto& [site, seconds] : w->propagated_from) from.emplace_back(seconds, site);
    std::stable_sort(from.begin(), from.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    json propagated_from = json::array();
    for (const auto& [seconds, site] : from) {
      json row = place(trace, site.first, site.second);
      row["wait_s"] = seconds;
      propagated_from.push_back(std::move(row));
    }
    json row = place(trace, w->callsite, w->function);
    row.update({{"delay_places", delay_places_json(trace, *w)},
                {"delay_ranks", delay_ranks_json(trace, *w)}});
    row.update({{"wait_s", w->wait_s},
                {"wait_states", w->wait_states},
                {"computation_s", w->computation_s},
                {"latency_s", w->latency_s},
                {"bandwidth_s", w->bandwidth_s},
                {"propagated_s", w->propagated_s},
                {"unexplained_s", w->unexplained_s},
                {"propagated_from", std::move(propagated_from)}});
    callsites.push_back(std::move(row));
  }
  json delays = json::array();
  for (std::size_t i = 0; i < std::min(d.delays.size(), kTopDelays); ++i) {
    const DelayCosts& c = d.delays[i];
    std::vector<std::pair<double, std::uint32_t>> by_rank;
    for (const auto& [position, seconds] : c.long_term_by_rank)
      by_rank.emplace_back(seconds, position);
    const std::size_t top = std::min(by_rank.size(), kTopDelayRanks);
    std::partial_sort(by_rank.begin(), by_rank.begin() + static_cast<std::ptrdiff_t>(top),
                      by_rank.end(), [](const auto& a, const auto& b) {
                        return a.first > b.first || (a.first == b.first && a.second < b.second);
                      });
    json ranks = json::array();
    for (std::size_t k = 0; k < top; ++k) {
      ranks.push_back(
          {{"rank", trace.ranks.at(by_rank[k].second).rank}, {"long_term_s", by_rank[k].first}});
    }
    json row = place(trace, c.callsite, c.function);
    row.update({{"kind", delay_kind_key(c.kind)},
                {"short_term_s", c.short_term_s},
                {"long_term_s", c.long_term_s},
                {"ranks", by_rank.size()},
                {"top_ranks", std::move(ranks)}});
    delays.push_back(std::move(row));
  }
  return {{"method", "delay analysis (Böhme et al. 2016), activities compared by kind"},
          {"wait_s", d.wait_s},
          {"short_term_s", d.short_term_s},
          {"long_term_s", d.long_term_s},
          {"unexplained_s", unexplained},
          {"callsites", std::move(callsites)},
          {"delays", std::move(delays)},
          {"delays_listed", std::min(d.delays.size(), kTopDelays)},
          {"delay_places", d.delays.size()}};
}

}  // namespace mpidle::analysis
