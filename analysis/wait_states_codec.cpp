#include "wait_states_codec.hpp"

#include "model/byte_stream.hpp"

namespace mpidle::analysis {
namespace {

using model::ByteReader;
using model::ByteWriter;

void put_seconds(ByteWriter& w, const PatternSeconds& s) {
  for (const double v : s) w.put(v);
}

bool get_seconds(ByteReader& r, PatternSeconds& s) {
  for (double& v : s) {
    if (!r.get(v)) return false;
  }
  return true;
}

}  // namespace

std::vector<std::byte> encode_wait_states(const WaitStates& waits) {
  ByteWriter w;
  w.put(waits.events);
  w.put(waits.messages);
  w.put(waits.collectives);
  put_seconds(w, waits.totals);
  model::put_vector(w, waits.sites, [](ByteWriter& out, const SiteWaits& s) {
    out.put(s.callsite);
    out.put(s.function);
    out.put(s.instances);
    put_seconds(out, s.total);
    out.put<std::uint64_t>(s.by_rank.size());
    for (const auto& [position, seconds] : s.by_rank) {
      out.put(position);
      put_seconds(out, seconds);
    }
  });
  return w.take();
}

std::optional<WaitStates> decode_wait_states(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  WaitStates waits;
  if (!r.get(waits.events) || !r.get(waits.messages) || !r.get(waits.collectives) ||
      !get_seconds(r, waits.totals)) {
    return std::nullopt;
  }
  constexpr std::size_t kSiteBytes = 4 + 4 + 8 + kPatterns * 8 + 8;
  const bool ok = model::get_vector(r, waits.sites, kSiteBytes, [](ByteReader& in, SiteWaits& s) {
    std::uint64_t rows = 0;
    if (!in.get(s.callsite) || !in.get(s.function) || !in.get(s.instances) ||
        !get_seconds(in, s.total) || !in.get(rows) || !in.can_hold(rows, 4 + kPatterns * 8)) {
      return false;
    }
    for (std::uint64_t i = 0; i < rows; ++i) {
      std::uint32_t position = 0;
      PatternSeconds seconds{};
      if (!in.get(position) || !get_seconds(in, seconds)) return false;
      s.by_rank[position] = seconds;
    }
    return true;
  });
  if (!ok || !r.at_end()) return std::nullopt;
  return waits;
}

std::vector<std::byte> encode_send_classes(const SendClasses& classes) {
  ByteWriter w;
  w.put<std::uint64_t>(classes.size());
  for (const auto& [key, c] : classes) {
    w.put(key.first);
    w.put(key.second);
    w.put(c.fastest_ns);
    w.put(c.ended_before_post);
    w.put(c.held_past_post);
  }
  return w.take();
}

std::optional<SendClasses> decode_send_classes(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  std::uint64_t n = 0;
  if (!r.get(n) || !r.can_hold(n, 32)) return std::nullopt;
  SendClasses out;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint32_t function = 0;
    std::int32_t size_class = 0;
    SendClass c;
    if (!r.get(function) || !r.get(size_class) || !r.get(c.fastest_ns) ||
        !r.get(c.ended_before_post) || !r.get(c.held_past_post))
      return std::nullopt;
    out[{function, size_class}] = c;
  }
  if (!r.at_end()) return std::nullopt;
  return out;
}

}  // namespace mpidle::analysis
