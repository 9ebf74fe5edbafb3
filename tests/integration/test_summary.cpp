// Loop summaries end to end: a program with a known loop nest, run in trace mode
// on real ranks; the iteration counts it reports must be the ones in summary.txt,
// in the JSON and in `mpidle summary`.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

// Loops in a summary tree, outermost first: (iterations, loop node).
void loops_in(const nlohmann::json& tree, std::vector<const nlohmann::json*>& out) {
  if (tree["type"] == "loop") {
    out.push_back(&tree);
    loops_in(tree["body"], out);
  } else if (tree["type"] == "pair") {
    loops_in(tree["left"], out);
    loops_in(tree["right"], out);
  }
}

bool has_leaf(const nlohmann::json& tree, const std::string& function, const std::string& kind) {
  if (tree["type"] == "leaf") return tree["function"] == function && tree["kind"] == kind;
  if (tree["type"] == "loop") return has_leaf(tree["body"], function, kind);
  return has_leaf(tree["left"], function, kind) || has_leaf(tree["right"], function, kind);
}

// Calls of `function` a summary tree stands for: leaves times their loops'
// iterations, and what folds name.
std::uint64_t calls_in(const nlohmann::json& tree, const std::string& function) {
  const std::string type = tree["type"];
  if (type == "leaf") return tree["kind"] == "call" && tree["function"] == function ? 1 : 0;
  if (type == "loop")
    return tree["iterations"].get<std::uint64_t>() * calls_in(tree["body"], function);
  if (type == "pair") return calls_in(tree["left"], function) + calls_in(tree["right"], function);
  std::uint64_t named = 0;
  for (const auto& c : tree["top_calls"]) {
    if (c["function"] == function) named += c["count"].get<std::uint64_t>();
  }
  return named;
}

}  // namespace

TEST_CASE("summary: irregular polls fold within the budget, every call still counted", "[mpi]") {
  // Each rank polls 1 to 40 times (its own pseudo-random sequence) before each of
  // 4,000 exchanges: no few loops describe that. The program counts its calls.
  const auto dir = scratch_dir("summary_irregular");
  const auto r = run_mpi(2, program("irregular_polls"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const auto doc = nlohmann::json::parse(read_text(dir + "/profile.json"));
  REQUIRE(doc.contains("summary"));
  const auto& groups = doc["summary"]["groups"];
  REQUIRE(groups.size() == 2);  // the ranks poll differently
  std::size_t folds = 0;
  for (const auto& group : groups) {
    REQUIRE(group["ranks"].size() == 1);
    const int rank = group["ranks"][0];
    std::uint64_t iprobes = 0, sendrecvs = 0, events = 0;
    for (const auto& element : group["sequence"]) {
      const auto& tree = element["tree"];
      folds += tree["type"] == "fold";
      iprobes += calls_in(tree, "MPI_Iprobe");
      sendrecvs += calls_in(tree, "MPI_Sendrecv");
      if (tree["type"] == "fold") events += tree["events"].get<std::uint64_t>();
    }
    INFO("rank " << rank);
    CHECK(group["omitted_elements"] == 0);
    CHECK(group["dropped_events"] == 0);
    CHECK(iprobes == truth["iprobes"][rank].get<std::uint64_t>());
    CHECK(sendrecvs == truth["sendrecvs"][rank].get<std::uint64_t>());
    CHECK(events <= group["events"].get<std::uint64_t>());
  }
  CHECK(folds >= 2);
  // Bounded: 2,048 printed nodes a group, about 0.6 MB of JSON.
  CHECK(doc["summary"].dump().size() < 2 * 700'000);
  const std::string text = read_text(dir + "/summary.txt");
  CHECK(std::count(text.begin(), text.end(), '\n') < 2 * 2048 + 40);
  CHECK(text.find("{irregular: ") != std::string::npos);
  // mpidle summary and the HTML report read it back.
  const auto shown = run({build_tree::mpidle_bin, "summary", dir});
  CHECK(shown.status == 0);
  CHECK(shown.out.find("{irregular: ") != std::string::npos);
  CHECK(run({build_tree::mpidle_bin, "report", dir, "--html", dir + "/report.html"}).status == 0);
}

TEST_CASE("summary: a known loop nest shows its iteration counts", "[mpi]") {
  const auto dir = scratch_dir("summary_loop_nest");
  const auto r = run_mpi(2, example("loop_nest"), {"--outer", "13", "--inner", "5", "--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const int outer = truth["outer_iterations"];
  const int inner = truth["inner_exchanges"];
  REQUIRE(outer == 13);
  REQUIRE(inner == 5);

  // summary.txt: both ranks in one group, and the nest in the paper's notation.
  const std::string text = read_text(dir + "/summary.txt");
  INFO(text);
  CHECK(text.find("## ranks 0, 1:") != std::string::npos);
  const std::regex nest("\\(\\(CPU(\\d+)\\+Sendrecv\\1\\)\\[" + std::to_string(inner) +
                        "\\] \\+ CPU(\\d+)\\+Allreduce\\2\\)\\[" + std::to_string(outer) +
                        "\\]: [0-9.]+\n");
  CHECK(std::regex_search(text, nest));

  // The JSON: the element holding the Allreduce is a loop of `outer` iterations
  // whose body holds a loop of `inner` Sendrecvs.
  const auto doc = nlohmann::json::parse(read_text(dir + "/profile.json"));
  REQUIRE(doc.contains("summary"));
  const auto& groups = doc["summary"]["groups"];
  REQUIRE(groups.size() == 1);
  CHECK(groups[0]["ranks"].get<std::vector<int>>() == std::vector<int>{0, 1});
  const nlohmann::json* nest_tree = nullptr;
  for (const auto& e : groups[0]["sequence"]) {
    if (has_leaf(e["tree"], "MPI_Allreduce", "call")) nest_tree = &e["tree"];
  }
  REQUIRE(nest_tree);
  std::vector<const nlohmann::json*> loops;
  loops_in(*nest_tree, loops);
  REQUIRE(loops.size() == 2);
  CHECK((*loops[0])["iterations"].get<int>() == outer);
  CHECK((*loops[1])["iterations"].get<int>() == inner);
  CHECK(has_leaf((*loops[1])["body"], "MPI_Sendrecv", "call"));
  CHECK(has_leaf((*loops[1])["body"], "MPI_Sendrecv", "burst"));
  // Per rank, every iteration is one occurrence of the outer body: 2 ranks × outer.
  CHECK((*loops[0])["body"]["timing"]["count"].get<int>() == 2 * outer);
  // The program busy-waits 20 us before each exchange: the bursts say so.
  const auto& inner_body = (*loops[1])["body"];
  const auto& burst =
      inner_body["left"]["kind"] == "burst" ? inner_body["left"] : inner_body["right"];
  CHECK(burst["timing"]["count"].get<int>() == 2 * outer * inner);
  CHECK(burst["timing"]["min_s"].get<double>() >= 19e-6);

  // mpidle summary prints the same lines; --symbols peer re-summarizes the trace,
  // and in a ring of two the right neighbour is +1 for rank 0 and −1 for rank 1.
  const auto shown =
      run({build_tree::mpidle_bin, "summary", dir, "--detail", "high", "--rank", "1"});
  CHECK(shown.status == 0);
  CHECK(std::regex_search(shown.out, nest));
  CHECK(shown.out.find("count/rank") != std::string::npos);
  const auto by_peer = run({build_tree::mpidle_bin, "summary", dir, "--symbols", "peer"});
  CHECK(by_peer.status == 0);
  CHECK(by_peer.out.find("## rank 0:") != std::string::npos);
  CHECK(by_peer.out.find("@+1)[" + std::to_string(inner) + "]") != std::string::npos);
  CHECK(by_peer.out.find("@-1)[" + std::to_string(inner) + "]") != std::string::npos);
}

TEST_CASE("summary: bad input gets one line and status 2, and settings", "[mpi]") {
  const auto missing = run({build_tree::mpidle_bin, "summary", "/nonexistent/run"});
  CHECK(missing.status == 2);
  CHECK(missing.err.rfind("mpidle summary: no such run directory", 0) == 0);
  // A profile-mode run has no summary.
  const auto dir = scratch_dir("summary_profile_only");
  REQUIRE(run_mpi(2, example("loop_nest"), {"--outer", "2"}, {{"MPIDLE_OUTPUT", dir}}).status == 0);
  const auto no_summary = run({build_tree::mpidle_bin, "summary", dir});
  CHECK(no_summary.status == 2);
  CHECK(no_summary.err.find("not a trace run") != std::string::npos);
  const auto bad_detail = run({build_tree::mpidle_bin, "summary", dir, "--detail", "medium"});
  CHECK(bad_detail.status == 2);
  // A garbage MPIDLE_SUMMARY_SYMBOLS warns once and keeps the default;
  // MPIDLE_SUMMARY_DETAIL=high puts per-symbol timings into summary.txt.
  const auto dir2 = scratch_dir("summary_bad_symbols");
  const auto r = run_mpi(2, example("loop_nest"), {"--outer", "2"},
                         {{"MPIDLE_OUTPUT", dir2},
                          {"MPIDLE_TRACE", "1"},
                          {"MPIDLE_SUMMARY_SYMBOLS", "bogus"},
                          {"MPIDLE_SUMMARY_DETAIL", "high"}});
  CHECK(r.status == 0);
  CHECK(r.err.find("MPIDLE_SUMMARY_SYMBOLS=\"bogus\" is not") != std::string::npos);
  const std::string text = read_text(dir2 + "/summary.txt");
  CHECK(text.find("Symbols: callsite") != std::string::npos);
  CHECK(text.find("count/rank") != std::string::npos);  // MPIDLE_SUMMARY_DETAIL=high

  // A trace cut in half: every command that reads it refuses it in one line, with
  // nothing said before; `summary` without --symbols reads profile.json only.
  std::filesystem::resize_file(dir2 + "/trace.mpidle",
                               std::filesystem::file_size(dir2 + "/trace.mpidle") / 2);
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"summary", dir2, "--symbols", "peer"},
        std::vector<std::string>{"sync", dir2}, std::vector<std::string>{"analyze", dir2}}) {
    std::vector<std::string> argv{build_tree::mpidle_bin};
    argv.insert(argv.end(), command.begin(), command.end());
    const auto cut = run(argv);
    INFO(command.front() << ": " << cut.err);
    CHECK(cut.status != 0);
    CHECK(count_lines_with(cut.err, "") == 1);
    CHECK(cut.err.find("truncated trace") != std::string::npos);
  }
  CHECK(run({build_tree::mpidle_bin, "summary", dir2}).status == 0);
}
