#include "trace_file.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <sstream>

#include "byte_stream.hpp"
#include "table_merge.hpp"

namespace mpidle::model {
namespace {

constexpr char kMagic[8] = {'M', 'P', 'I', 'D', 'L', 'E', 'T', 'R'};
constexpr char kIndexMark[8] = {'M', 'P', 'I', 'D', 'L', 'E', 'I', 'X'};

// The trace's reader: the common format's StreamReader, failing with the file's name.
class In {
 public:
  In(std::istream& in, std::string name) : m_name(std::move(name)), m_reader(in) {}
  template <typename T>
  T get() {
    T v{};
    if (!m_reader.get(v)) truncated();
    return v;
  }
  template <typename T, typename Allocator>
  void get_array(std::vector<T, Allocator>& v) {
    if (!m_reader.get_array(v)) truncated();
  }
  template <typename T>
  void skip_array() {
    if (!m_reader.template skip_array<T>()) truncated();
  }
  std::string get_string() {
    std::string s;
    if (!m_reader.get_string(s)) truncated();
    return s;
  }
  std::uint64_t count(std::uint64_t min_item_bytes) {
    const auto n = get<std::uint64_t>();
    if (!m_reader.can_hold(n, min_item_bytes)) truncated();
    return n;
  }
  bool at_end() { return m_reader.at_end(); }
  std::uint64_t position() { return m_reader.position(); }
  [[noreturn]] void fail(const std::string& what) { throw TraceError(m_name + ": " + what); }

 private:
  [[noreturn]] void truncated() { fail("truncated trace"); }

  std::string m_name;
  StreamReader m_reader;
};

void write_head(std::ostream& stream, const Trace& trace, std::uint64_t ranks) {
  StreamWriter out(stream);
  out.put(kMagic);
  out.put(kTraceFormatVersion);
  out.put<std::uint32_t>(sizeof(TraceRecord));
  out.put(trace.min_latency_ns);
  out.put<std::uint64_t>(trace.counter_names.size());
  for (const auto& n : trace.counter_names) out.put_string(n);
  out.put<std::uint64_t>(trace.functions.size());
  for (const auto& f : trace.functions) out.put_string(f);
  out.put<std::uint64_t>(trace.callsites.size());
  for (const auto& c : trace.callsites) {
    out.put<std::uint64_t>(c.frames.size());
    for (const auto& f : c.frames) {
      out.put_string(f.module);
      out.put(f.offset);
      out.put_string(f.function);
      out.put_string(f.file);
      out.put(f.line);
    }
  }
  out.put<std::uint64_t>(ranks);
}

void write(std::ostream& stream, const Trace& trace) {
  const std::string head = encode_trace_head(trace, trace.ranks.size());
  stream.write(head.data(), static_cast<std::streamsize>(head.size()));
  std::uint64_t at = head.size();
  std::vector<std::uint64_t> offsets;
  for (const auto& r : trace.ranks) {
    offsets.push_back(at);
    const RankSectionBytes section(r);
    for (const auto& piece : section.pieces()) {
      stream.write(reinterpret_cast<const char*>(piece.data()),
                   static_cast<std::streamsize>(piece.size()));
    }
    at += section.size();
  }
  const std::string count = encode_trace_index_count(offsets.size());
  const std::string tail = encode_trace_index_tail(at);
  stream.write(count.data(), static_cast<std::streamsize>(count.size()));
  stream.write(reinterpret_cast<const char*>(offsets.data()),
               static_cast<std::streamsize>(offsets.size() * sizeof(std::uint64_t)));
  stream.write(tail.data(), static_cast<std::streamsize>(tail.size()));
}

Trace read(std::istream& stream, const std::string& name, const RankSelection* keep = nullptr) {
  In in(stream, name);
  const auto magic = in.get<std::array<char, 8>>();
  if (std::memcmp(magic.data(), kMagic, sizeof kMagic) != 0) in.fail("not an mpidle trace");
  const auto version = in.get<std::uint32_t>();
  if (version < 1 || version > kTraceFormatVersion) {
    in.fail("trace format version " + std::to_string(version) + " (this mpidle reads 1 to " +
            std::to_string(kTraceFormatVersion) + ")");
  }
  if (in.get<std::uint32_t>() != sizeof(TraceRecord)) in.fail("unexpected record size");
  Trace t;
  t.min_latency_ns = in.get<std::int64_t>();
  t.counter_names.resize(in.count(4));
  for (auto& n : t.counter_names) n = in.get_string();
  t.functions.resize(in.count(4));
  for (auto& f : t.functions) f = in.get_string();
  t.callsites.resize(in.count(8));
  for (auto& c : t.callsites) {
    c.frames.resize(in.count(24));
    for (auto& f : c.frames) {
      f.module = in.get_string();
      f.offset = in.get<std::uint64_t>();
      f.function = in.get_string();
      f.file = in.get_string();
      f.line = in.get<std::int32_t>();
    }
  }
  t.ranks.resize(in.count(4 + 2 * sizeof(ClockMeasurement) + 40));
  std::vector<std::uint64_t> offsets;
  for (std::size_t position = 0; position < t.ranks.size(); ++position) {
    auto& r = t.ranks[position];
    offsets.push_back(in.position());
    r.rank = in.get<std::int32_t>();
    r.init = in.get<ClockMeasurement>();
    r.final = in.get<ClockMeasurement>();
    r.spilled_chunks = in.get<std::uint64_t>();
    r.lost_records = in.get<std::uint64_t>();
    if (keep && !(*keep)(position, t.ranks.size())) {
      in.skip_array<TraceRecord>();
      in.skip_array<std::int64_t>();
      in.skip_array<std::int64_t>();
      continue;
    }
    in.get_array(r.records);
    in.get_array(r.synced);
    in.get_array(r.counters);
    try {
      check_rank_trace(t, r);
    } catch (const TraceError& e) {
      in.fail(e.what());
    }
  }
  if (version >= 2) {
    // The index must point at the sections just read.
    const std::uint64_t index_offset = in.position();
    if (in.get<std::uint64_t>() != offsets.size()) in.fail("index of another number of ranks");
    for (const auto offset : offsets) {
      if (in.get<std::uint64_t>() != offset) in.fail("index does not match the rank sections");
    }
    if (in.get<std::uint64_t>() != index_offset ||
        std::memcmp(in.get<std::array<char, 8>>().data(), kIndexMark, sizeof kIndexMark) != 0) {
      in.fail("damaged index");
    }
  }
  if (!in.at_end()) in.fail("trailing bytes after the last rank");
  return t;
}

}  // namespace

RankSectionBytes::RankSectionBytes(const RankTrace& r) {
  std::byte* at = m_head.data();
  auto put = [&](const auto& v) {
    std::memcpy(at, &v, sizeof v);
    at += sizeof v;
  };
  put(r.rank);
  put(r.init);
  put(r.final);
  put(r.spilled_chunks);
  put(r.lost_records);
  m_counts = {r.records.size(), r.synced.size(), r.counters.size()};
  auto bytes = [](const auto& v) { return std::as_bytes(std::span(v)); };
  m_pieces = {
      std::span<const std::byte>(m_head.data(), static_cast<std::size_t>(at - m_head.data())),
      std::as_bytes(std::span(&m_counts[0], 1)),
      bytes(r.records),
      std::as_bytes(std::span(&m_counts[1], 1)),
      bytes(r.synced),
      std::as_bytes(std::span(&m_counts[2], 1)),
      bytes(r.counters)};
  for (const auto& p : m_pieces) m_size += p.size();
}

std::string encode_trace_index_count(std::uint64_t ranks) {
  return std::string(reinterpret_cast<const char*>(&ranks), sizeof ranks);
}

std::string encode_trace_index_tail(std::uint64_t index_offset) {
  std::string tail(reinterpret_cast<const char*>(&index_offset), sizeof index_offset);
  tail.append(kIndexMark, sizeof kIndexMark);
  return tail;
}

std::uint64_t trace_index_size(std::uint64_t ranks) {
  return 8 + 8 * ranks + 8 + sizeof kIndexMark;
}

std::string encode_trace_head(const Trace& trace, std::uint64_t ranks) {
  std::ostringstream out(std::ios::binary);
  write_head(out, trace, ranks);
  return std::move(out).str();
}

void check_rank_trace(const Trace& t, const RankTrace& r) {
  const std::string rank = "rank " + std::to_string(r.rank);
  if (!r.counters.empty() && r.counters.size() != t.counter_names.size() * r.records.size()) {
    throw TraceError(rank + " has counters for some records only");
  }
  if (!r.synced.empty() && r.synced.size() != 2 * r.records.size()) {
    throw TraceError(rank + " has synchronized times for some records only");
  }
  const auto sane = [](std::int64_t ns) { return ns >= -kMaxTraceTimeNs && ns <= kMaxTraceTimeNs; };
  for (const auto& rec : r.records) {
    if (rec.function >= t.functions.size() || rec.callsite >= t.callsites.size() ||
        rec.exit_ns < rec.enter_ns) {
      throw TraceError(rank + " has a malformed record");
    }
    if (!sane(rec.enter_ns) || !sane(rec.exit_ns)) {
      throw TraceError(rank + " has a timestamp out of range (corrupted trace?)");
    }
  }
  for (const std::int64_t ns : r.synced) {
    if (!sane(ns)) throw TraceError(rank + " has a synchronized time out of range");
  }
  for (const ClockMeasurement* m : {&r.init, &r.final}) {
    if (!sane(m->offset_ns) || !sane(m->at_ns) || m->rtt_ns < 0 || m->rtt_ns > kMaxTraceTimeNs) {
      throw TraceError(rank + " has a clock measurement out of range");
    }
  }
  if (t.min_latency_ns < 0 || t.min_latency_ns > kMaxTraceTimeNs) {
    throw TraceError("the trace's minimum latency is out of range");
  }
}

void write_trace(const std::filesystem::path& file, const Trace& trace) {
  std::ofstream out(file, std::ios::binary);
  if (!out) throw TraceError("cannot create " + file.string());
  write(out, trace);
  out.flush();
  if (!out) throw TraceError("cannot write " + file.string());
}

Trace read_trace(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TraceError("cannot open " + file.string());
  return read(in, file.string());
}

Trace read_trace_ranks(const std::filesystem::path& file, const RankSelection& keep) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TraceError("cannot open " + file.string());
  return read(in, file.string(), &keep);
}

std::string encode_trace(const Trace& trace) {
  std::ostringstream out(std::ios::binary);
  write(out, trace);
  return std::move(out).str();
}

Trace decode_trace(const std::string& bytes) {
  std::istringstream in(bytes, std::ios::binary);
  return read(in, "trace from another rank");
}

void merge_traces(Trace& into, Trace&& from) {
  const IndexMaps maps =
      unify_tables(into.functions, into.callsites, from.functions, from.callsites);
  if (into.counter_names.empty()) into.counter_names = std::move(from.counter_names);
  into.min_latency_ns = into.ranks.empty()   ? from.min_latency_ns
                        : from.ranks.empty() ? into.min_latency_ns
                                             : std::min(into.min_latency_ns, from.min_latency_ns);
  const std::size_t first_new = into.ranks.size();
  for (auto& rank : from.ranks) {
    for (auto& rec : rank.records) {
      rec.function = maps.functions.at(rec.function);
      rec.callsite = maps.callsites.at(rec.callsite);
    }
    into.ranks.push_back(std::move(rank));
  }
  // Ranks gathered in order need no sort (rank 0 merges thousands of ranks one by one).
  auto by_rank = [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; };
  if (!std::is_sorted(
          into.ranks.begin() + static_cast<std::ptrdiff_t>(first_new) - (first_new > 0 ? 1 : 0),
          into.ranks.end(), by_rank)) {
    std::stable_sort(into.ranks.begin(), into.ranks.end(), by_rank);
  }
}

}  // namespace mpidle::model
