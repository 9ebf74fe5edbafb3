#include "calibration.hpp"

#include <algorithm>

#include "byte_stream.hpp"

namespace mpidle::model {

std::optional<double> calibrated_baseline_s(const Calibration& c, const CalibrationKey& key) {
  auto it = c.keys.find(key);
  if (it == c.keys.end() || it->second.calls < kMinCalibratedCalls) return std::nullopt;
  return std::max(0.0, it->second.cost_s / static_cast<double>(it->second.calls));
}

std::size_t calibrated_keys(const Calibration& c) {
  std::size_t n = 0;
  for (const auto& [key, cost] : c.keys) n += cost.calls >= kMinCalibratedCalls;
  return n;
}

void merge_calibration(Calibration& into, const Calibration& from) {
  for (const auto& [key, cost] : from.keys) {
    CalibratedCost& k = into.keys[key];
    k.cost_s += cost.cost_s;
    k.wait_s += cost.wait_s;
    k.calls += cost.calls;
  }
  if (into.source.empty()) into.source = from.source;
  into.windows = std::max(into.windows, from.windows);
  into.windows_cut += from.windows_cut;
  into.records += from.records;
  into.calls_left_out += from.calls_left_out;
}

std::vector<std::byte> encode_calibration(const Calibration& c) {
  ByteWriter w;
  w.put_string(c.source);
  w.put(c.windows);
  w.put(c.windows_cut);
  w.put(c.records);
  w.put(c.calls_left_out);
  w.put<std::uint64_t>(c.keys.size());
  for (const auto& [key, cost] : c.keys) {
    w.put_string(std::get<0>(key));
    w.put(std::get<1>(key));
    w.put(std::get<2>(key));
    w.put(cost.cost_s);
    w.put(cost.wait_s);
    w.put(cost.calls);
  }
  return w.take();
}

std::optional<Calibration> decode_calibration(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  Calibration c;
  std::uint64_t n = 0;
  if (!r.get_string(c.source) || !r.get(c.windows) || !r.get(c.windows_cut) || !r.get(c.records) ||
      !r.get(c.calls_left_out) || !r.get(n) || !r.can_hold(n, 36)) {
    return std::nullopt;
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    std::string function;
    std::int32_t size_class = 0, shape = 0;
    CalibratedCost cost;
    if (!r.get_string(function) || !r.get(size_class) || !r.get(shape) || !r.get(cost.cost_s) ||
        !r.get(cost.wait_s) || !r.get(cost.calls)) {
      return std::nullopt;
    }
    c.keys[{std::move(function), size_class, shape}] = cost;
  }
  if (!r.at_end()) return std::nullopt;
  return c;
}

}  // namespace mpidle::model
