// Summaries across ranks: identical ones merge with their rank sets, different
// ones stay apart; the binary and JSON forms give back what went in; the text
// uses the notation of summary.txt.
#include <catch2/catch.hpp>
#include <string>

#include "compress/summary_codec.hpp"
#include "compress/summary_json.hpp"
#include "compress/summary_text.hpp"
#include "compress/trace_symbols.hpp"
#include "model/json_fields.hpp"

using namespace mpidle;
using namespace mpidle::compress;

namespace {

// A rank's trace: `iterations` of (Send to rank+1, Recv from rank−1) at two
// callsites, then one Barrier; calls last `call_ns`, bursts 1000 ns.
model::RankTrace exchange_rank(std::int32_t rank, int iterations, std::int64_t call_ns) {
  model::RankTrace r;
  r.rank = rank;
  std::int64_t t = 0;
  auto call = [&](std::uint32_t function, std::uint64_t callsite, std::int32_t peer) {
    model::TraceRecord rec;
    rec.function = function;
    rec.callsite = callsite;
    rec.peer = peer;
    rec.bytes = 64;
    rec.role = function == 0 ? model::TraceRole::send : model::TraceRole::recv;
    if (function == 2) rec.role = model::TraceRole::collective;
    t += 1000;
    rec.enter_ns = t;
    t += call_ns;
    rec.exit_ns = t;
    r.records.push_back(rec);
  };
  for (int i = 0; i < iterations; ++i) {
    call(0, 0, rank + 1);
    call(1, 1, rank - 1);
  }
  call(2, 2, -1);
  return r;
}

model::Trace exchange_trace(const std::vector<int>& iterations_by_rank) {
  model::Trace trace;
  trace.functions = {"MPI_Send", "MPI_Recv", "MPI_Barrier"};
  for (std::uint64_t i = 0; i < 3; ++i) {
    model::Callsite c;
    c.frames.push_back({"/bin/app", 0x1000 + 16 * i, "main", "app.c", static_cast<int>(10 + i)});
    trace.callsites.push_back(c);
  }
  for (std::size_t r = 0; r < iterations_by_rank.size(); ++r) {
    trace.ranks.push_back(
        exchange_rank(static_cast<std::int32_t>(r), iterations_by_rank[r], 2000 + 1000 * r));
  }
  return trace;
}

std::string first_line_of_group(const std::string& text, const std::string& label) {
  const auto at = text.find("## " + label + ":");
  if (at == std::string::npos) return "";
  const auto start = text.find('\n', at) + 1;
  return text.substr(start, text.find('\n', start) - start);
}

}  // namespace

TEST_CASE("identical rank summaries merge into one group labelled with the rank set") {
  const auto set = summarize_trace(exchange_trace({50, 50, 50, 50}), SymbolOptions{});
  REQUIRE(set.groups.size() == 1);
  CHECK(set.groups[0].ranks == std::vector<std::int32_t>{0, 1, 2, 3});
  CHECK(rank_label(set.groups[0].ranks) == "ranks 0\u20133");
  const std::string text = render_summary_text(set, {});
  // 4 ranks: per-rank element time is the mean; rank r's calls last 2000 + 1000 r ns.
  const std::string line = first_line_of_group(text, "ranks 0\u20133");
  CHECK(line.rfind("(CPU1+Send1+CPU2+Recv2)[50]: ", 0) == 0);
  CHECK(text.find("app.c:10 (main)") != std::string::npos);
  // Timings add up over ranks: 4 × 50 sends.
  const Summary& s = set.groups[0].summary;
  std::uint64_t sends = 0;
  for (const auto& n : s.nodes) {
    if (n.kind == NodeKind::leaf && set.terminals[n.a].function == "MPI_Send" &&
        set.terminals[n.a].kind == TerminalKind::call) {
      sends = n.timing.count;
      CHECK(n.timing.min_ns == 2000);
      CHECK(n.timing.max_ns == 5000);
    }
  }
  CHECK(sends == 200);
}

TEST_CASE("different rank summaries stay apart") {
  const auto set = summarize_trace(exchange_trace({50, 50, 70}), SymbolOptions{});
  REQUIRE(set.groups.size() == 2);
  CHECK(set.groups[0].ranks == std::vector<std::int32_t>{0, 1});
  CHECK(set.groups[1].ranks == std::vector<std::int32_t>{2});
  const std::string text = render_summary_text(set, {});
  CHECK(first_line_of_group(text, "ranks 0, 1").find("[50]") != std::string::npos);
  CHECK(first_line_of_group(text, "rank 2").find("[70]") != std::string::npos);
  // --rank shows the group of that rank only.
  TextOptions only;
  only.rank = 2;
  const std::string one = render_summary_text(set, only);
  CHECK(one.find("## rank 2:") != std::string::npos);
  CHECK(one.find("## ranks 0, 1:") == std::string::npos);
}

TEST_CASE("merging in a tree gives the same groups as merging in order") {
  const auto trace = exchange_trace({50, 70, 50, 70, 50});
  SummarySet left = summarize_rank_trace(trace, trace.ranks[0], {});
  merge_summary_sets(left, summarize_rank_trace(trace, trace.ranks[1], {}));
  SummarySet right = summarize_rank_trace(trace, trace.ranks[2], {});
  merge_summary_sets(right, summarize_rank_trace(trace, trace.ranks[3], {}));
  merge_summary_sets(right, summarize_rank_trace(trace, trace.ranks[4], {}));
  merge_summary_sets(left, std::move(right));
  REQUIRE(left.groups.size() == 2);
  CHECK(left.groups[0].ranks == std::vector<std::int32_t>{0, 2, 4});
  CHECK(left.groups[1].ranks == std::vector<std::int32_t>{1, 3});
  CHECK(rank_label(left.groups[0].ranks) == "ranks 0, 2, 4");
}

TEST_CASE("peer symbols are relative, so neighbours in a line merge") {
  // Rank 0 receives from no one (peer −1), ranks 1 and 2 send to +1, receive from −1.
  const auto set = summarize_trace(exchange_trace({20, 20, 20}), SymbolOptions{true, false});
  REQUIRE(set.groups.size() == 2);
  CHECK(set.groups[1].ranks == std::vector<std::int32_t>{1, 2});
  const std::string text = render_summary_text(set, {});
  CHECK(text.find("Send1@+1") != std::string::npos);
  CHECK(text.find("Recv2@-1") != std::string::npos);
  const auto sized = summarize_trace(exchange_trace({20}), SymbolOptions{false, true});
  CHECK(render_summary_text(sized, {}).find("Send1#64") != std::string::npos);
}

TEST_CASE("a summary set survives its binary form") {
  const auto set = summarize_trace(exchange_trace({30, 40}), SymbolOptions{true, true});
  const auto back = decode_summary_set(encode_summary_set(set));
  REQUIRE(back);
  CHECK(render_summary_text(*back, {Detail::high, {}}) ==
        render_summary_text(set, {Detail::high, {}}));
  std::string bytes = encode_summary_set(set);
  CHECK_FALSE(decode_summary_set(bytes.substr(0, bytes.size() - 3)));
  bytes[0] ^= 1;
  CHECK_FALSE(decode_summary_set(bytes));
}

TEST_CASE("the JSON form is a tree with iteration counts and reads back the same") {
  const auto set = summarize_trace(exchange_trace({25, 25}), SymbolOptions{});
  const auto j = summary_to_json(set);
  CHECK(j["schema"] == "mpidle-summary/2");
  const auto& element = j["groups"][0]["sequence"][0];
  CHECK(element["text"] == "(CPU1+Send1+CPU2+Recv2)[25]");
  CHECK(element["tree"]["type"] == "loop");
  CHECK(element["tree"]["iterations"] == 25);
  CHECK(element["tree"]["body"]["type"] == "pair");
  CHECK(j["groups"][0]["sequence"].size() == 3);  // the loop, CPU3, Barrier3
  CHECK(j["callsites"][0]["location"] == "app.c:10 (main)");
  const auto back = summary_from_json(j);
  CHECK(render_summary_text(back, {Detail::high, {}}) ==
        render_summary_text(set, {Detail::high, {}}));
  auto broken = j;
  broken["groups"][0]["sequence"][0]["tree"]["type"] = "twist";
  CHECK_THROWS_AS(summary_from_json(broken), model::ProfileError);
}

TEST_CASE("high detail lists every symbol of an element with its timing") {
  const auto set = summarize_trace(exchange_trace({10}), SymbolOptions{});
  const std::string text = render_summary_text(set, {Detail::high, {}});
  CHECK(text.find("count/rank") != std::string::npos);
  // Send1: 10 occurrences of 2 us.
  const auto at = text.find("  Send1\n");
  REQUIRE(at != std::string::npos);
  const auto row_start = text.rfind('\n', at) + 1;
  const std::string row = text.substr(row_start, at - row_start);
  CHECK(row.find(" 10 ") != std::string::npos);
  CHECK(row.find(" 20.0 ") != std::string::npos);
}
