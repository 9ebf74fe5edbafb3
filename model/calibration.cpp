#include "calibration.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "byte_stream.hpp"

namespace mpidle::model {

double effective_calls(const CalibratedCost& cost) {
  const double n = static_cast<double>(cost.calls);
  if (cost.cost_s <= 0 || cost.cost_sq_s2 <= 0) return n;
  return std::min(n, cost.cost_s * cost.cost_s / cost.cost_sq_s2);
}

namespace {

// The baseline of calls judged: their mean cost without waiting.
double mean_cost_s(const CalibratedCost& cost) {
  return std::max(0.0, cost.cost_s / static_cast<double>(cost.calls));
}

double mean_bytes(const CalibratedCost& cost) {
  return cost.bytes / static_cast<double>(cost.calls);
}

struct Point {
  std::int32_t size_class;
  double bytes, cost_s, effective_calls;
};

// The nearest calibrated size classes of `key`'s function and shape below and above
// its own (sizeless keys, those of incomplete polls, have none).
std::pair<std::optional<Point>, std::optional<Point>> neighbours(const Calibration& c,
                                                                 const CalibrationKey& key) {
  const auto& [function, size_class, shape] = key;
  std::optional<Point> below, above;
  if (size_class < 0) return {below, above};
  for (auto it = c.keys.lower_bound({function, INT32_MIN, INT32_MIN});
       it != c.keys.end() && std::get<0>(it->first) == function; ++it) {
    const auto& [f, sc, sh] = it->first;
    if (sh != shape || sc == size_class || sc < 0 || it->second.calls < kMinCalibratedCalls) {
      continue;
    }
    const CalibratedCost sample = key_sample(c, it->first);
    const Point p{sc, mean_bytes(sample), mean_cost_s(sample), effective_calls(sample)};
    if (sc < size_class && (!below || sc > below->size_class)) below = p;
    if (sc > size_class && (!above || sc < above->size_class)) above = p;
  }
  return {below, above};
}

double secant(const Point& a, const Point& b) {
  return b.bytes > a.bytes ? (b.cost_s - a.cost_s) / (b.bytes - a.bytes) : 0.0;
}

// A calibrated key's slope in bytes.
double slope_of(const Calibration& c, const CalibrationKey& key, const Point& own) {
  const auto [below, above] = neighbours(c, key);
  double slope = 0;
  if (below && above) {
    slope = secant(*below, *above);
  } else if (below) {
    slope = secant(*below, own);
  } else if (above) {
    slope = secant(own, *above);
  }
  return std::max(0.0, slope);
}

// How many entries of a key map have enough calls.
template <typename Map>
std::size_t count_calibrated(const Map& map) {
  std::size_t n = 0;
  for (const auto& [key, cost] : map) n += cost.calls >= kMinCalibratedCalls;
  return n;
}

void put(ByteWriter& w, const CalibratedCost& cost) {
  w.put(cost.cost_s);
  w.put(cost.wait_s);
  w.put(cost.calls);
  w.put(cost.bytes);
  w.put(cost.cost_sq_s2);
}

bool get(ByteReader& r, CalibratedCost& cost) {
  return r.get(cost.cost_s) && r.get(cost.wait_s) && r.get(cost.calls) && r.get(cost.bytes) &&
         r.get(cost.cost_sq_s2);
}

template <typename Map>
const CalibratedCost* find_cost(const Map& map, const typename Map::key_type& key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

template <typename Map>
void put_costs(ByteWriter& w, const Map& map) {
  w.put<std::uint64_t>(map.size());
  for (const auto& [key, cost] : map) {
    w.put_string(std::get<0>(key));
    w.put(std::get<1>(key));
    w.put(std::get<2>(key));
    if constexpr (std::tuple_size_v<typename Map::key_type> == 4) w.put_string(std::get<3>(key));
    put(w, cost);
  }
}

// Fixed bytes of one entry (a key of empty strings): what a count may claim.
template <typename Map>
bool get_costs(ByteReader& r, Map& map) {
  constexpr bool with_site = std::tuple_size_v<typename Map::key_type> == 4;
  std::uint64_t n = 0;
  if (!r.get(n) || !r.can_hold(n, with_site ? 56 : 52)) return false;
  for (std::uint64_t i = 0; i < n; ++i) {
    typename Map::key_type key;
    if (!r.get_string(std::get<0>(key)) || !r.get(std::get<1>(key)) || !r.get(std::get<2>(key))) {
      return false;
    }
    if constexpr (with_site) {
      if (!r.get_string(std::get<3>(key))) return false;
    }
    CalibratedCost cost;
    if (!get(r, cost)) return false;
    map[std::move(key)] = cost;
  }
  return true;
}

}  // namespace

CalibratedCost baseline_sample(const CalibratedCost& all, const CalibratedCost* start) {
  if (!start || start->calls == 0) return all;
  CalibratedCost later = all;
  later -= *start;
  return later.calls >= kMinLaterCalls ? later : all;
}

CalibratedCost key_sample(const Calibration& c, const CalibrationKey& key) {
  auto it = c.keys.find(key);
  if (it == c.keys.end()) return {};
  return baseline_sample(it->second, find_cost(c.start_keys, key));
}

double start_window_correction_s(const Calibration& c, const SiteCalibrationKey& site,
                                 double baseline_s) {
  const CalibratedCost* start = find_cost(c.own_start_sites, site);
  if (!start || start->calls == 0) return 0;
  return static_cast<double>(start->calls) * baseline_s - start->cost_s;
}

double baseline_standard_error_s(const CalibratedCost& cost) {
  if (cost.calls < 2) return 0;
  const double n = static_cast<double>(cost.calls);
  const double mean = cost.cost_s / n;
  const double variance = std::max(0.0, (cost.cost_sq_s2 - n * mean * mean) / (n - 1));
  return std::sqrt(variance / n);
}

double CalibratedBaseline::at(double mean_bytes) const {
  return std::max(0.0, cost_s + slope_s_per_byte * (mean_bytes - bytes));
}

std::optional<CalibratedBaseline> calibrated_baseline(const Calibration& c,
                                                      const CalibrationKey& key) {
  auto it = c.keys.find(key);
  if (it == c.keys.end() || it->second.calls < kMinCalibratedCalls) return std::nullopt;
  const CalibratedCost sample = key_sample(c, key);
  const Point own{std::get<1>(key), mean_bytes(sample), mean_cost_s(sample),
                  effective_calls(sample)};
  return CalibratedBaseline{own.cost_s, own.bytes, slope_of(c, key, own), own.effective_calls};
}

std::optional<CalibratedBaseline> calibrated_baseline(const Calibration& c,
                                                      const CalibrationKey& key,
                                                      const std::string& site) {
  auto baseline = calibrated_baseline(c, key);
  if (baseline) *baseline = at_site(c, key, site, *baseline);
  return baseline;
}

CalibratedBaseline at_site(const Calibration& c, const CalibrationKey& key, const std::string& site,
                           CalibratedBaseline key_line) {
  const auto& [function, size_class, shape] = key;
  const SiteCalibrationKey at{function, size_class, shape, site};
  for (const auto& [costs, starts] :
       {std::pair{&c.own_sites, &c.own_start_sites}, std::pair{&c.sites, &c.start_sites}}) {
    auto it = costs->find(at);
    if (it != costs->end() && it->second.calls >= kMinCalibratedCalls) {
      const CalibratedCost sample = baseline_sample(it->second, find_cost(*starts, at));
      key_line.cost_s = mean_cost_s(sample);
      key_line.bytes = mean_bytes(sample);
      key_line.effective_calls = effective_calls(sample);
      break;
    }
  }
  return key_line;
}

std::optional<CalibratedBaseline> interpolated_baseline(const Calibration& c,
                                                        const CalibrationKey& key) {
  auto own = c.keys.find(key);
  if (own != c.keys.end() && own->second.calls >= kMinCalibratedCalls) return std::nullopt;
  const auto [below, above] = neighbours(c, key);
  if (!below || !above) return std::nullopt;
  const double effective = std::min(below->effective_calls, above->effective_calls);
  if (above->bytes > below->bytes) {
    return CalibratedBaseline{below->cost_s, below->bytes, secant(*below, *above), effective};
  }
  const double t = static_cast<double>(std::get<1>(key) - below->size_class) /
                   static_cast<double>(above->size_class - below->size_class);
  return CalibratedBaseline{below->cost_s + t * (above->cost_s - below->cost_s), 0, 0, effective};
}

std::string site_identity(const Callsite& callsite) {
  std::string id;
  for (const Frame& f : callsite.frames) {
    id += f.module;
    id += '+';
    id += std::to_string(f.offset);
    id += ';';
  }
  return id;
}

const std::string* SiteIdentities::of(std::uint64_t callsite) {
  if (callsite >= m_ids.size()) return nullptr;
  auto& id = m_ids[callsite];
  if (!id) id = site_identity(m_callsites[callsite]);
  return &*id;
}

std::size_t calibrated_keys(const Calibration& c) {
  return count_calibrated(c.keys);
}

std::size_t calibrated_sites(const Calibration& c) {
  return count_calibrated(c.sites);
}

void merge_calibration(Calibration& into, const Calibration& from) {
  for (const auto& [key, cost] : from.keys) into.keys[key] += cost;
  for (const auto& [key, cost] : from.sites) into.sites[key] += cost;
  for (const auto& [key, cost] : from.start_keys) into.start_keys[key] += cost;
  for (const auto& [key, cost] : from.start_sites) into.start_sites[key] += cost;
  for (const auto& [key, causes] : from.causes) into.causes[key] += causes;
  if (into.source.empty()) into.source = from.source;
  into.windows = std::max(into.windows, from.windows);
  into.windows_cut += from.windows_cut;
  into.windows_capped = std::max(into.windows_capped, from.windows_capped);
  into.records += from.records;
  into.calls_left_out += from.calls_left_out;
}

Calibration with_own_part(Calibration reduced, const Calibration& mine) {
  reduced.own_sites = mine.sites;
  reduced.own_start_sites = mine.start_sites;
  return reduced;
}

namespace {

bool get_causes(ByteReader& r, std::map<CauseSiteKey, WindowCauses>& out) {
  std::uint64_t n = 0;
  if (!r.get(n) || !r.can_hold(n, 72)) return false;
  for (std::uint64_t i = 0; i < n; ++i) {
    CauseSiteKey key;
    WindowCauses c;
    if (!r.get_string(key.first) || !r.get_string(key.second) || !r.get(c.wait_s) ||
        !r.get(c.computation_s) || !r.get(c.latency_s) || !r.get(c.bandwidth_s) ||
        !r.get(c.propagated_s) || !r.get(c.unexplained_s) || !r.get(c.wait_states)) {
      return false;
    }
    out[std::move(key)] += c;
  }
  return true;
}

}  // namespace

std::vector<std::byte> encode_calibration(const Calibration& c) {
  ByteWriter w;
  w.put_string(c.source);
  w.put(c.windows);
  w.put(c.windows_cut);
  w.put(c.windows_capped);
  w.put(c.records);
  w.put(c.calls_left_out);
  put_costs(w, c.keys);
  put_costs(w, c.sites);
  put_costs(w, c.start_keys);
  put_costs(w, c.start_sites);
  w.put<std::uint64_t>(c.causes.size());
  for (const auto& [key, causes] : c.causes) {
    w.put_string(key.first);
    w.put_string(key.second);
    for (double x : {causes.wait_s, causes.computation_s, causes.latency_s, causes.bandwidth_s,
                     causes.propagated_s, causes.unexplained_s})
      w.put(x);
    w.put(causes.wait_states);
  }
  return w.take();
}

std::optional<Calibration> decode_calibration(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  Calibration c;
  if (!r.get_string(c.source) || !r.get(c.windows) || !r.get(c.windows_cut) ||
      !r.get(c.windows_capped) || !r.get(c.records) || !r.get(c.calls_left_out) ||
      !get_costs(r, c.keys) || !get_costs(r, c.sites) || !get_costs(r, c.start_keys) ||
      !get_costs(r, c.start_sites) || !get_causes(r, c.causes) || !r.at_end()) {
    return std::nullopt;
  }
  return c;
}

}  // namespace mpidle::model
