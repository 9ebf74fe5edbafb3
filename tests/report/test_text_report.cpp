#include <catch2/catch.hpp>

#include "../model/fixtures.hpp"
#include "model/profile_reader.hpp"
#include "model/profile_writer.hpp"
#include "model/table_merge.hpp"
#include "report/text/analysis_text.hpp"
#include "report/text/text_report.hpp"

using namespace mpidle;

namespace {
model::Profile sample(bool global) {
  auto t = test::tables_for_rank(0, 15e-6, 5e-6);
  model::merge_tables(t, test::tables_for_rank(1, 3e-6, 1e-6));
  t.callsites[0].frames[0].file = "/src/solver.c";
  t.callsites[0].frames[0].line = 57;
  t.callsites[0].frames[0].function = "exchange";
  model::RunInfo run;
  run.executable = "/bin/app";
  run.wait_estimate = global ? "global" : "minimum";
  run.wall_s = 1;
  return model::parse_profile(model::build_profile(t, run).profile);
}
}  // namespace

TEST_CASE("the report names the estimate and shows the matching numbers", "[report]") {
  const auto local = report::format_report(sample(false), {10, report::Estimate::local});
  CHECK_THAT(local, Catch::Contains("wait (minimum estimate)"));
  CHECK_THAT(local, Catch::Contains("each rank's fastest call"));
  const auto global = report::format_report(sample(true), {10, report::Estimate::global});
  CHECK_THAT(global, Catch::Contains("wait (global estimate)"));
  CHECK_THAT(global, Catch::Contains("fastest call of any rank"));
  // The receive waited 12 µs against the global minimum and 0 against rank 0's own.
  CHECK_THAT(global, Catch::Contains("solver.c:57 (exchange)"));
  CHECK_THAT(global, Catch::Contains("12.0 us"));
}

TEST_CASE("callsites without debug information show module and offset", "[report]") {
  model::CallsiteRow c;
  c.frames = {model::Frame{"/usr/lib/libfoo.so", 0x1a2, "foo_send", "", 0}};
  CHECK(report::callsite_location(c) == "foo_send (libfoo.so+0x1a2)");
  c.frames[0].file = "/src/foo.c";
  c.frames[0].line = 9;
  CHECK(report::callsite_location(c) == "foo.c:9 (foo_send)");
}

TEST_CASE("the run summary is five lines", "[report]") {
  const auto text = report::format_summary(sample(false), "/tmp/run");
  CHECK(std::count(text.begin(), text.end(), '\n') == 5);
  CHECK_THAT(text, Catch::Contains("mpidle report /tmp/run"));
}

TEST_CASE("the run summary gives MPI and wait per rank, so they compare with the wall time",
          "[report]") {
  auto p = sample(false);
  REQUIRE(p.ranks.size() == 2);
  p.run.wall_s = 1.0;
  for (auto& r : p.ranks) r.wall_s = 1.0;
  p.ranks[0].mpi_s = 0.8;  // summed over the ranks this would be 1.4 s of a 1 s run
  p.ranks[1].mpi_s = 0.6;
  p.ranks[0].estimates.wait_s_minimum = 0.5;
  p.ranks[1].estimates.wait_s_minimum = 0.1;
  const auto text = report::format_summary(p, "/tmp/run");
  CHECK_THAT(text, Catch::Contains("2 ranks, wall 1.00 s; per rank: MPI 700.00 ms (70.0%), "
                                   "wait 300.00 ms (30.0%, minimum estimate)"));
}

TEST_CASE("the report points out startup skew when first calls dominate the wait", "[report]") {
  auto p = sample(false);
  for (auto& r : p.ranks) r.first_call_wait_s = r.estimates.wait_s_minimum;
  const auto text = report::format_report(p, {10, report::Estimate::local});
  CHECK_THAT(text, Catch::Contains("startup skew"));
}

TEST_CASE("an analysis.json missing a section is refused with an exception", "[report]") {
  const auto full = nlohmann::json::parse(R"({"events": 4, "messages": 2, "collectives": 0,
    "totals": {"late_sender": 0.5}, "callsites": [],
    "accuracy": {"trace_s": 0.5, "minimum_local_s": 0.5, "agreement_local": 1,
                 "minimum_global_s": 0.5, "agreement_global": 1, "by_pattern": {},
                 "callsites": []}})");
  CHECK_THAT(mpidle::report::analysis_text(full, 10), Catch::Contains("late_sender"));
  for (const char* section : {"totals", "callsites", "accuracy", "events"}) {
    INFO(section);
    auto doc = full;
    doc.erase(section);
    CHECK_THROWS_AS(mpidle::report::analysis_text(doc, 10), nlohmann::json::exception);
  }
  auto doc = full;
  doc["accuracy"].erase("by_pattern");
  CHECK_THROWS_AS(mpidle::report::analysis_text(doc, 10), nlohmann::json::exception);
}
