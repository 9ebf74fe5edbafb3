// What dominates a callsite in two runs (analysis/callsite_verdict), the policy of
// `mpidle compare`'s advice, on figures chosen at each side of its thresholds.
#include <catch2/catch.hpp>

#include "analysis/callsite_verdict.hpp"

using namespace mpidle::analysis;

TEST_CASE("callsite verdict: waiting, transfer, latency and bandwidth by the costlier run",
          "[analysis]") {
  const WaitGrowth none;
  // Half the time waiting, none of it maybe transfer.
  CHECK(dominant_of({10, 5, 0, 64}, none) == Dominant::waiting);
  // Half waiting, but a fifth of it may be the transfer a Wait held.
  CHECK(dominant_of({10, 5, 1, 64}, none) == Dominant::waiting_or_transfer);
  // Less than half waiting: the bytes per visit decide.
  CHECK(dominant_of({10, 4.9, 0, kLatencyBoundBytes}, none) == Dominant::latency);
  CHECK(dominant_of({10, 4.9, 0, kLatencyBoundBytes + 1}, none) == Dominant::bandwidth);
  CHECK(dominant_of({0, 0, 0, 0}, none) == Dominant::latency);
}

TEST_CASE(
    "callsite verdict: waiting that grew with MPI processing, not with imbalance, is propagated",
    "[analysis]") {
  const CallsiteCost waiting{10, 8, 0, 64};
  WaitGrowth g;
  g.in_both = true;
  g.wait_higher = 8;
  g.wait_lower = 1;        // more than doubled: grew by 7
  g.imbalance_grew = 3.4;  // less than half of 7
  g.processing_grew = 7;   // at least as much as the wait
  CHECK(dominant_of(waiting, g) == Dominant::propagated);
  SECTION("the load imbalance grew by half the waiting or more") {
    g.imbalance_grew = 3.5;
    CHECK(dominant_of(waiting, g) == Dominant::waiting);
  }
  SECTION("MPI processing grew less than the waiting") {
    g.processing_grew = 6.9;
    CHECK(dominant_of(waiting, g) == Dominant::waiting);
  }
  SECTION("the waiting did not double") {
    g.wait_lower = 4;
    g.processing_grew = 4;
    g.imbalance_grew = 0;
    CHECK(dominant_of(waiting, g) == Dominant::waiting);
  }
  SECTION("a callsite of one run only") {
    g.in_both = false;
    CHECK(dominant_of(waiting, g) == Dominant::waiting);
  }
}

TEST_CASE("callsite verdict: a trace's root causes say why a waiting callsite waited",
          "[analysis]") {
  CHECK(dominant_by_causes(Dominant::waiting, {3, 1, 1}) == Dominant::waiting);
  CHECK(dominant_by_causes(Dominant::waiting, {1, 3, 1}) == Dominant::waiting_for_communication);
  CHECK(dominant_by_causes(Dominant::propagated, {1, 3, 1}) == Dominant::waiting_for_communication);
  CHECK(dominant_by_causes(Dominant::waiting, {1, 1, 3}) == Dominant::waiting_propagated);
  // Without causes, and for verdicts that are not waiting, nothing changes.
  CHECK(dominant_by_causes(Dominant::waiting, {0, 0, 0}) == Dominant::waiting);
  CHECK(dominant_by_causes(Dominant::latency, {0, 3, 0}) == Dominant::latency);
  CHECK(dominant_by_causes(Dominant::waiting_or_transfer, {0, 3, 0}) ==
        Dominant::waiting_or_transfer);
}
