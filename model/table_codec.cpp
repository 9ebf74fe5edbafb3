#include "table_codec.hpp"

#include "byte_stream.hpp"

namespace mpidle::model {
namespace {

constexpr std::uint32_t kMagic = 0x4d504454;  // "MPDT"
constexpr std::uint32_t kVersion = 2;

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

void put_entry(ByteWriter& w, const Entry& e) {
  w.put(e.callsite);
  w.put(e.function);
  w.put(e.size_class);
  w.put(e.peer);
  w.put(e.visits);
  w.put(e.time_s);
  w.put(e.min_s);
  w.put(e.bytes);
  w.put(e.comm_shape);
}

bool get_entry(ByteReader& r, Entry& e) {
  return r.get(e.callsite) && r.get(e.function) && r.get(e.size_class) && r.get(e.peer) &&
         r.get(e.visits) && r.get(e.time_s) && r.get(e.min_s) && r.get(e.bytes) &&
         r.get(e.comm_shape);
}

void put_first_call(ByteWriter& w, const FirstCall& c) {
  w.put(c.function);
  w.put(c.size_class);
  w.put(c.peer);
  w.put(c.time_s);
  w.put(c.comm_shape);
}

bool get_first_call(ByteReader& r, FirstCall& c) {
  return r.get(c.function) && r.get(c.size_class) && r.get(c.peer) && r.get(c.time_s) &&
         r.get(c.comm_shape);
}

template <typename T, typename GetItem>
bool get_vector(ByteReader& r, std::vector<T>& out, std::size_t min_item_bytes, GetItem get_item) {
  std::uint64_t n = 0;
  if (!r.get(n) || !r.can_hold(n, min_item_bytes)) return false;
  out.resize(n);
  for (auto& item : out) {
    if (!get_item(r, item)) return false;
  }
  return true;
}

template <typename T, typename PutItem>
void put_vector(ByteWriter& w, const std::vector<T>& items, PutItem put_item) {
  w.put<std::uint64_t>(items.size());
  for (const auto& item : items) put_item(w, item);
}

}  // namespace

std::vector<std::byte> encode_tables(const ProfileTables& tables) {
  ByteWriter w;
  w.put(kMagic);
  w.put(kVersion);
  put_vector(w, tables.functions, [](ByteWriter& w, const std::string& s) { w.put_string(s); });
  put_vector(w, tables.callsites,
             [](ByteWriter& w, const Callsite& c) { put_vector(w, c.frames, put_frame); });
  put_vector(w, tables.ranks, [](ByteWriter& w, const RankData& r) {
    w.put(r.rank);
    w.put_string(r.host);
    w.put(r.wall_s);
    w.put(r.dropped_calls);
    w.put(r.memory_bytes);
    w.put(r.untracked_requests);
    put_vector(w, r.entries, put_entry);
    put_vector(w, r.first_calls, put_first_call);
  });
  return w.take();
}

std::optional<ProfileTables> decode_tables(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  std::uint32_t magic = 0, version = 0;
  if (!r.get(magic) || magic != kMagic || !r.get(version) || version != kVersion) return {};
  ProfileTables t;
  bool ok =
      get_vector(r, t.functions, 4, [](ByteReader& r, std::string& s) { return r.get_string(s); });
  ok = ok && get_vector(r, t.callsites, 8, [](ByteReader& r, Callsite& c) {
         return get_vector(r, c.frames, 24, get_frame);
       });
  ok = ok && get_vector(r, t.ranks, 32, [](ByteReader& r, RankData& d) {
         return r.get(d.rank) && r.get_string(d.host) && r.get(d.wall_s) &&
                r.get(d.dropped_calls) && r.get(d.memory_bytes) && r.get(d.untracked_requests) &&
                get_vector(r, d.entries, 48, get_entry) &&
                get_vector(r, d.first_calls, 20, get_first_call);
       });
  if (!ok || !r.at_end()) return {};
  // Indices must point into the tables, or later stages would read out of bounds.
  for (const auto& rank : t.ranks) {
    for (const auto& e : rank.entries) {
      if (e.callsite >= t.callsites.size() || e.function >= t.functions.size()) return {};
    }
    for (const auto& c : rank.first_calls) {
      if (c.function >= t.functions.size()) return {};
    }
  }
  return t;
}

}  // namespace mpidle::model
