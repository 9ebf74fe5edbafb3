#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/trace_file.hpp"

using namespace mpidle::model;
namespace fs = std::filesystem;

namespace {
Trace sample_trace() {
  Trace t;
  t.functions = {"MPI_Send", "MPI_Recv"};
  t.callsites = {Callsite{{Frame{"/bin/app", 0x1234, "main", "app.c", 42}}, {}}};
  t.min_latency_ns = 900;
  for (std::int32_t r = 0; r < 2; ++r) {
    RankTrace rank;
    rank.rank = r;
    rank.init = {r * 1000, 2000, 5'000};
    rank.final = {r * 1100, 2100, 9'000'000};
    TraceRecord rec;
    rec.enter_ns = 100 + r;
    rec.exit_ns = 200 + r;
    rec.function = static_cast<std::uint32_t>(r);
    rec.peer = 1 - r;
    rec.tag = 7;
    rec.role = r == 0 ? TraceRole::send : TraceRole::recv;
    rank.records = {rec};
    if (r == 1) rank.synced = {150, 260};
    t.ranks.push_back(rank);
  }
  return t;
}

fs::path scratch(const char* name) {
  const fs::path dir = fs::temp_directory_path() / "mpidle-test-trace";
  fs::create_directories(dir);
  return dir / name;
}
}  // namespace

TEST_CASE("a trace survives write and read unchanged", "[model]") {
  const auto file = scratch("roundtrip.trace");
  write_trace(file, sample_trace());
  const Trace t = read_trace(file);
  CHECK(t.functions == std::vector<std::string>{"MPI_Send", "MPI_Recv"});
  REQUIRE(t.callsites.size() == 1);
  CHECK(t.callsites[0].frames[0].line == 42);
  CHECK(t.min_latency_ns == 900);
  REQUIRE(t.ranks.size() == 2);
  CHECK(t.ranks[1].init.offset_ns == 1000);
  CHECK(t.ranks[1].final.at_ns == 9'000'000);
  REQUIRE(t.ranks[1].records.size() == 1);
  CHECK(t.ranks[1].records[0].role == TraceRole::recv);
  CHECK(t.ranks[1].records[0].exit_ns == 201);
  CHECK(t.ranks[0].synced.empty());
  CHECK(t.ranks[1].synced == LargeArray<std::int64_t>{150, 260});
}

TEST_CASE("missing, foreign, truncated or malformed traces are refused", "[model]") {
  CHECK_THROWS_WITH(read_trace(scratch("missing.trace")), Catch::Contains("cannot open"));

  std::ofstream(scratch("foreign.trace")) << "this is not a trace at all";
  CHECK_THROWS_WITH(read_trace(scratch("foreign.trace")), Catch::Contains("not an mpidle trace"));

  const auto good = scratch("good.trace");
  write_trace(good, sample_trace());
  const auto size = fs::file_size(good);
  for (auto cut : {std::uintmax_t{12}, size / 2, size - 1}) {
    fs::copy_file(good, scratch("cut.trace"), fs::copy_options::overwrite_existing);
    fs::resize_file(scratch("cut.trace"), cut);
    CHECK_THROWS_WITH(read_trace(scratch("cut.trace")), Catch::Contains("truncated"));
  }

  auto bad = sample_trace();
  bad.ranks[0].records[0].function = 99;
  write_trace(scratch("bad.trace"), bad);
  CHECK_THROWS_WITH(read_trace(scratch("bad.trace")), Catch::Contains("malformed record"));

  // Corrupted times (a flipped high bit): refused before any arithmetic on them.
  bad = sample_trace();
  bad.ranks[1].records[0].exit_ns = INT64_MAX - 5;
  write_trace(scratch("bad.trace"), bad);
  CHECK_THROWS_WITH(read_trace(scratch("bad.trace")), Catch::Contains("timestamp out of range"));
  bad = sample_trace();
  bad.ranks[0].records[0].enter_ns = INT64_MIN;
  write_trace(scratch("bad.trace"), bad);
  CHECK_THROWS_WITH(read_trace(scratch("bad.trace")), Catch::Contains("timestamp out of range"));
  bad = sample_trace();
  bad.ranks[1].synced[1] = kMaxTraceTimeNs + 1;
  write_trace(scratch("bad.trace"), bad);
  CHECK_THROWS_WITH(read_trace(scratch("bad.trace")),
                    Catch::Contains("synchronized time out of range"));
  bad = sample_trace();
  bad.ranks[1].final.rtt_ns = -1;
  write_trace(scratch("bad.trace"), bad);
  CHECK_THROWS_WITH(read_trace(scratch("bad.trace")), Catch::Contains("clock measurement"));
  // The largest accepted times still read.
  auto edge = sample_trace();
  edge.ranks[1].records[0].enter_ns = -kMaxTraceTimeNs;
  edge.ranks[1].records[0].exit_ns = kMaxTraceTimeNs;
  write_trace(scratch("edge.trace"), edge);
  CHECK(read_trace(scratch("edge.trace")).ranks[1].records[0].exit_ns == kMaxTraceTimeNs);

  {
    std::fstream f(good, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    const std::uint32_t version = 99;
    f.write(reinterpret_cast<const char*>(&version), sizeof version);
  }
  CHECK_THROWS_WITH(read_trace(good), Catch::Contains("trace format version 99"));
}

TEST_CASE("partial traces merge with functions and callsites unified", "[model]") {
  Trace a = sample_trace();
  a.ranks.resize(1);  // rank 0 only
  Trace b = sample_trace();
  b.ranks.erase(b.ranks.begin());  // rank 1 only
  // Rank 1 lists its functions the other way round.
  std::swap(b.functions[0], b.functions[1]);
  b.ranks[0].records[0].function = 0;  // still MPI_Recv
  b.min_latency_ns = 700;
  const auto bytes = encode_trace(b);
  merge_traces(a, decode_trace(bytes));
  REQUIRE(a.ranks.size() == 2);
  CHECK(a.functions.size() == 2);
  CHECK(a.callsites.size() == 1);
  CHECK(a.functions[a.ranks[1].records[0].function] == "MPI_Recv");
  CHECK(a.min_latency_ns == 700);
  CHECK_THROWS_AS(decode_trace(bytes.substr(0, bytes.size() - 3)), TraceError);
}

TEST_CASE("a trace is its head and its ranks' sections, and some ranks can be read alone",
          "[model]") {
  const Trace t = sample_trace();
  std::string pieced = encode_trace_head(t, t.ranks.size());
  std::vector<std::uint64_t> starts;
  for (const auto& r : t.ranks) {
    starts.push_back(pieced.size());
    const RankSectionBytes section(r);
    std::uint64_t size = 0;
    for (const auto& piece : section.pieces()) {
      pieced.append(reinterpret_cast<const char*>(piece.data()), piece.size());
      size += piece.size();
    }
    CHECK(size == section.size());
  }
  const std::uint64_t index_at = pieced.size();
  pieced += encode_trace_index_count(starts.size());
  pieced.append(reinterpret_cast<const char*>(starts.data()), starts.size() * 8);
  pieced += encode_trace_index_tail(index_at);
  CHECK(pieced.size() == index_at + trace_index_size(starts.size()));
  CHECK(pieced == encode_trace(t));

  // A version 1 file (no index) is still read; a wrong index entry is refused.
  std::string v1 = pieced.substr(0, index_at);
  const std::uint32_t one = 1;
  std::memcpy(v1.data() + 8, &one, sizeof one);
  CHECK(decode_trace(v1).ranks.size() == 2);
  std::string wrong = pieced;
  wrong[index_at + 8] ^= 1;
  CHECK_THROWS_AS(decode_trace(wrong), TraceError);

  const auto file = scratch("partial.trace");
  write_trace(file, t);
  const Trace second = read_trace_ranks(
      file, [](std::size_t position, std::size_t ranks) { return ranks == 2 && position == 1; });
  REQUIRE(second.ranks.size() == 2);
  CHECK(second.ranks[0].rank == 0);
  CHECK(second.ranks[0].init.offset_ns == 0);
  CHECK(second.ranks[0].final.offset_ns == 0);
  CHECK(second.ranks[0].records.empty());
  CHECK(second.ranks[1].final.offset_ns == 1100);
  REQUIRE(second.ranks[1].records.size() == 1);
  CHECK(second.ranks[1].records[0].exit_ns == 201);
  CHECK(second.ranks[1].synced == LargeArray<std::int64_t>{150, 260});
  fs::resize_file(file, fs::file_size(file) - 3);
  CHECK_THROWS_AS(read_trace_ranks(file, [](std::size_t, std::size_t) { return false; }),
                  TraceError);
}
