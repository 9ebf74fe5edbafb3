// The parallel delay analysis' parts as they travel between the replay's processes:
// merged by callsite and place, and read back whole or not at all.
#include <catch2/catch.hpp>

#include "analysis/replay_delays.hpp"

using namespace mpidle;
using namespace mpidle::analysis;

namespace {

DelayAnalysis part(double wait, std::uint32_t callsite, double computation) {
  DelayAnalysis d;
  WaitRootCauses w;
  w.callsite = callsite;
  w.function = 2;
  w.wait_s = wait;
  w.computation_s = computation;
  w.propagated_s = wait - computation;
  w.wait_states = 3;
  w.propagated_from[{7, 1}] = wait - computation;
  w.delay_places[{0, 5, 2}] = computation;
  w.delay_ranks[4] = computation;
  d.waits.push_back(w);
  DelayCosts c;
  c.kind = DelayKind::computation;
  c.callsite = 5;
  c.function = 2;
  c.short_term_s = computation;
  c.long_term_s = wait;
  c.long_term_by_rank[4] = wait;
  d.delays.push_back(c);
  d.wait_s = wait;
  d.short_term_s = computation;
  d.long_term_s = wait;
  return d;
}

}  // namespace

TEST_CASE("root causes over processes: parts merge by callsite and place, and read back",
          "[analysis]") {
  DelayAnalysis a = part(2.0, 9, 1.5);
  merge_delay_analysis(a, part(1.0, 9, 0.25));
  merge_delay_analysis(a, part(0.5, 11, 0.5));
  REQUIRE(a.waits.size() == 2);
  CHECK(a.waits[0].wait_s == Approx(3.0));
  CHECK(a.waits[0].computation_s == Approx(1.75));
  CHECK(a.waits[0].wait_states == 6);
  CHECK(a.waits[0].propagated_from.at({7, 1}) == Approx(1.25));
  CHECK(a.waits[0].delay_ranks.at(4) == Approx(1.75));
  REQUIRE(a.delays.size() == 1);  // one place: computation before callsite 5
  CHECK(a.delays[0].long_term_s == Approx(3.5));
  CHECK(a.wait_s == Approx(3.5));

  const auto bytes = encode_delay_analysis(a);
  const auto back = decode_delay_analysis(bytes);
  REQUIRE(back);
  CHECK(encode_delay_analysis(*back) == bytes);
  // Cut anywhere, or with a byte more: not readable.
  for (std::size_t cut : {std::size_t{0}, std::size_t{7}, bytes.size() / 2, bytes.size() - 1}) {
    INFO("cut at " << cut);
    CHECK_FALSE(decode_delay_analysis(std::span(bytes).first(cut)));
  }
  auto longer = bytes;
  longer.push_back(std::byte{0});
  CHECK_FALSE(decode_delay_analysis(longer));

  DelayAnalysis two = part(1.0, 9, 0.1);
  two.delays[0].long_term_s = 9.0;
  merge_delay_analysis(two, part(1.0, 9, 0.1));
  two.delays.push_back(two.delays[0]);
  two.delays[1].callsite = 6;
  two.delays[1].long_term_s = 20;
  sort_delays(two);
  CHECK(two.delays[0].callsite == 6);  // largest long-term cost first
}
