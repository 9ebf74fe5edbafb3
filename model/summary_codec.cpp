#include "summary_codec.hpp"

#include "byte_stream.hpp"

namespace mpidle::model {
namespace {

constexpr std::uint32_t kMinimaMagic = 0x4d50444d;   // "MDPM"
constexpr std::uint32_t kSummaryMagic = 0x4d504453;  // "SDPM"
// 2: local minima carry bytes and wait; 3: untimed calls; 4: duration histograms,
// robust wait and variation; 5: regions
constexpr std::uint32_t kVersion = 5;

void put_histogram(ByteWriter& w, const DurationHistogram& h) {
  put_vector(w, h, [](ByteWriter& w, const DurationBin& b) {
    w.put(b.bin);
    w.put(b.count);
    w.put(b.sum_s);
  });
}

bool get_histogram(ByteReader& r, DurationHistogram& h) {
  return get_vector(r, h, 20,
                    [](ByteReader& r, DurationBin& b) {
                      return r.get(b.bin) && r.get(b.count) && r.get(b.sum_s);
                    }) &&
         valid_histogram(h);
}

void put_estimates(ByteWriter& w, const WaitEstimates& e) {
  for (double v : {e.wait_s, e.variation_s, e.transfer_s, e.wait_or_transfer_s, e.wait_s_minimum,
                   e.wait_s_global_min, e.wait_s_calibrated}) {
    w.put(v);
  }
}

bool get_estimates(ByteReader& r, WaitEstimates& e) {
  return r.get(e.wait_s) && r.get(e.variation_s) && r.get(e.transfer_s) &&
         r.get(e.wait_or_transfer_s) && r.get(e.wait_s_minimum) && r.get(e.wait_s_global_min) &&
         r.get(e.wait_s_calibrated);
}

void put_frame(ByteWriter& w, const Frame& f) {
  w.put_string(f.module);
  w.put(f.offset);
  w.put_string(f.function);
  w.put_string(f.file);
  w.put(f.line);
}

bool get_frame(ByteReader& r, Frame& f) {
  return r.get_string(f.module) && r.get(f.offset) && r.get_string(f.function) &&
         r.get_string(f.file) && r.get(f.line);
}

void put_minimum(ByteWriter& w, const GlobalMinimum& m) {
  w.put_string(m.function);
  w.put(m.size_class);
  w.put(m.comm_shape);
  w.put(m.min_s);
  w.put(m.rank);
  w.put(m.count);
  w.put(m.ranks);
  put_histogram(w, m.durations);
}

bool get_minimum(ByteReader& r, GlobalMinimum& m) {
  return r.get_string(m.function) && r.get(m.size_class) && r.get(m.comm_shape) && r.get(m.min_s) &&
         r.get(m.rank) && r.get(m.count) && r.get(m.ranks) && get_histogram(r, m.durations);
}

void put_totals(ByteWriter& w, const FunctionTotals& t) {
  w.put(t.calls);
  w.put(t.incomplete_calls);
  w.put(t.time_s);
  put_estimates(w, t);
  w.put(t.bytes);
}

bool get_totals(ByteReader& r, FunctionTotals& t) {
  return r.get(t.calls) && r.get(t.incomplete_calls) && r.get(t.time_s) && get_estimates(r, t) &&
         r.get(t.bytes);
}

void put_share(ByteWriter& w, const CallsiteShare& s) {
  w.put(s.callsite);
  w.put(s.function);
  w.put(s.visits);
  w.put(s.time_s);
  put_estimates(w, s);
  w.put(s.bytes);
}

bool get_share(ByteReader& r, CallsiteShare& s) {
  return r.get(s.callsite) && r.get(s.function) && r.get(s.visits) && r.get(s.time_s) &&
         get_estimates(r, s) && r.get(s.bytes);
}

void put_local_minimum(ByteWriter& w, const LocalMinimum& m) {
  w.put(m.function);
  w.put(m.size_class);
  w.put(m.peer);
  w.put(m.comm_shape);
  w.put(m.min_s);
  w.put(m.count);
  w.put(m.bytes);
  w.put(m.wait_s);
}

bool get_local_minimum(ByteReader& r, LocalMinimum& m) {
  return r.get(m.function) && r.get(m.size_class) && r.get(m.peer) && r.get(m.comm_shape) &&
         r.get(m.min_s) && r.get(m.count) && r.get(m.bytes) && r.get(m.wait_s);
}

void put_rank(ByteWriter& w, const RankSummary& r) {
  w.put(r.rank);
  w.put_string(r.host);
  for (double v : {r.wall_s, r.mpi_s, r.first_call_wait_s}) w.put(v);
  put_estimates(w, r);
  for (std::uint64_t v :
       {r.calls, r.dropped_calls, r.memory_bytes, r.untracked_requests, r.untimed_calls}) {
    w.put(v);
  }
  put_vector(w, r.shares, put_share);
  put_vector(w, r.minima, put_local_minimum);
}

bool get_rank(ByteReader& r, RankSummary& s) {
  return r.get(s.rank) && r.get_string(s.host) && r.get(s.wall_s) && r.get(s.mpi_s) &&
         r.get(s.first_call_wait_s) && get_estimates(r, s) && r.get(s.calls) &&
         r.get(s.dropped_calls) && r.get(s.memory_bytes) && r.get(s.untracked_requests) &&
         r.get(s.untimed_calls) && get_vector(r, s.shares, 48, get_share) &&
         get_vector(r, s.minima, 48, get_local_minimum);
}

void put_region(ByteWriter& w, const RegionTotals& t) {
  w.put_string(t.path);
  put_estimates(w, t);
  for (std::uint64_t v : {t.visits, t.ranks, t.calls}) w.put(v);
  for (double v : {t.mpi_s, t.wall_sum_s, t.wall_max_s, t.useful_sum_s, t.useful_max_s}) w.put(v);
}

bool get_region(ByteReader& r, RegionTotals& t) {
  return r.get_string(t.path) && get_estimates(r, t) && r.get(t.visits) && r.get(t.ranks) &&
         r.get(t.calls) && r.get(t.mpi_s) && r.get(t.wall_sum_s) && r.get(t.wall_max_s) &&
         r.get(t.useful_sum_s) && r.get(t.useful_max_s);
}

bool read_header(ByteReader& r, std::uint32_t magic) {
  std::uint32_t m = 0, version = 0;
  return r.get(m) && m == magic && r.get(version) && version == kVersion;
}

}  // namespace

std::vector<std::byte> encode_minima(const GlobalMinima& minima) {
  ByteWriter w;
  w.put(kMinimaMagic);
  w.put(kVersion);
  put_vector(w, minima, put_minimum);
  return w.take();
}

std::optional<GlobalMinima> decode_minima(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  GlobalMinima m;
  if (!read_header(r, kMinimaMagic) || !get_vector(r, m, 40, get_minimum) || !r.at_end()) {
    return {};
  }
  return m;
}

std::vector<std::byte> encode_summary(const ProfileSummary& s) {
  ByteWriter w;
  w.put(kSummaryMagic);
  w.put(kVersion);
  put_vector(w, s.functions, [](ByteWriter& w, const std::string& f) { w.put_string(f); });
  put_vector(w, s.function_totals, put_totals);
  put_vector(w, s.callsites,
             [](ByteWriter& w, const Callsite& c) { put_vector(w, c.frames, put_frame); });
  put_vector(w, s.ranks, put_rank);
  put_vector(w, s.minima, put_minimum);
  put_vector(w, s.callsite_durations, [](ByteWriter& w, const CallsiteDurations& d) {
    w.put(d.callsite);
    w.put(d.function);
    put_histogram(w, d.durations);
  });
  put_vector(w, s.regions, put_region);
  return w.take();
}

std::optional<ProfileSummary> decode_summary(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  ProfileSummary s;
  bool ok =
      read_header(r, kSummaryMagic) &&
      get_vector(r, s.functions, 4,
                 [](ByteReader& r, std::string& f) { return r.get_string(f); }) &&
      get_vector(r, s.function_totals, 48, get_totals) &&
      get_vector(
          r, s.callsites, 8,
          [](ByteReader& r, Callsite& c) { return get_vector(r, c.frames, 24, get_frame); }) &&
      get_vector(r, s.ranks, 88, get_rank) && get_vector(r, s.minima, 40, get_minimum) &&
      get_vector(r, s.callsite_durations, 12,
                 [](ByteReader& r, CallsiteDurations& d) {
                   return r.get(d.callsite) && r.get(d.function) && get_histogram(r, d.durations);
                 }) &&
      get_vector(r, s.regions, 100, get_region);
  if (!ok || !r.at_end() || s.function_totals.size() != s.functions.size()) return {};
  // Indices must point into the tables, or later stages would read out of bounds.
  for (const auto& rank : s.ranks) {
    for (const auto& share : rank.shares) {
      if (share.callsite >= s.callsites.size() || share.function >= s.functions.size()) return {};
    }
    for (const auto& m : rank.minima) {
      if (m.function >= s.functions.size()) return {};
    }
  }
  for (const auto& d : s.callsite_durations) {
    if (d.callsite >= s.callsites.size() || d.function >= s.functions.size()) return {};
  }
  return s;
}

}  // namespace mpidle::model
