#include <catch2/catch.hpp>

#include "sync/clock_offset.hpp"
#include "sync/offset_model.hpp"

using namespace mpidle::sync;

TEST_CASE("Cristian's method keeps the reading with the shortest round trip", "[sync]") {
  // Remote clock = reference + 5000 ns. Replies are taken at varying points of
  // round trips of varying length; the shortest one is the most trustworthy.
  const std::vector<ClockSample> samples = {
      {1000, 1000 + 5000 + 900, 2000},  // rtt 1000, answer late in the trip: off by 400
      {3000, 3000 + 5000 + 110, 3200},  // rtt 200, nearly symmetric: off by 10
      {4000, 4000 + 5000 + 10, 9000},   // rtt 5000
  };
  const auto e = estimate_offset(samples);
  REQUIRE(e);
  CHECK(e->rtt_ns == 200);
  CHECK(e->offset_ns == 5010);
  CHECK(e->at_ns == 3100);
}

TEST_CASE("no usable sample gives no estimate", "[sync]") {
  CHECK_FALSE(estimate_offset({}));
  const std::vector<ClockSample> backwards = {{100, 0, 50}};
  CHECK_FALSE(estimate_offset(backwards));
}

TEST_CASE("offsets compose along the measurement tree", "[sync]") {
  const OffsetEstimate child_to_parent{300, 20, 1000};
  const OffsetEstimate parent_to_root{-1000, 30, 900};
  const auto to_root = compose(child_to_parent, parent_to_root);
  CHECK(to_root.offset_ns == -700);
  CHECK(to_root.rtt_ns == 50);
  // Parent time 1000 is root time 2000 when the parent runs 1000 ns behind.
  CHECK(to_root.at_ns == 2000);
}

TEST_CASE("linear interpolation recovers a known offset and drift", "[sync]") {
  // A clock 2 ms ahead that runs 50 ppm fast: local = ref + 2e6 + 50e-6 × ref.
  auto local_of = [](double ref) { return ref + 2e6 + 50e-6 * ref; };
  auto estimate_at = [&](double ref) {
    return OffsetEstimate{static_cast<std::int64_t>(local_of(ref) - ref), 100,
                          static_cast<std::int64_t>(ref)};
  };
  const auto model = OffsetModel::from(estimate_at(1e9), estimate_at(11e9));
  CHECK(model.drift == Approx(50e-6 / (1 + 50e-6)).epsilon(1e-6));
  for (double ref : {1e9, 3.3e9, 7e9, 11e9}) {
    const auto local = static_cast<std::int64_t>(local_of(ref));
    CHECK(std::llabs(model.to_reference(local) - static_cast<std::int64_t>(ref)) <= 2);
  }
}

TEST_CASE("one measurement (or two at once) means no drift", "[sync]") {
  const OffsetEstimate e{1234, 10, 5000};
  const auto model = OffsetModel::from(e, e);
  CHECK(model.drift == 0);
  CHECK(model.to_reference(5000 + 1234 + 777) == 5000 + 777);
}
