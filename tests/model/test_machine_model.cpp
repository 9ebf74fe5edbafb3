// Machine models: curve arithmetic, overrides, and the reader's errors.
#include <catch2/catch.hpp>

#include <functional>

#include "model/machine_launches.hpp"
#include "model/machine_model.hpp"

using namespace mpidle::model;

namespace {
CostCurve line() {  // 1 us + 1 ns per byte
  return CostCurve{{{0, 1e-6}, {1000, 2e-6}, {1'000'000, 1.001e-3}}};
}
}  // namespace

TEST_CASE("machine model: curves interpolate, extrapolate with the last slope, and override") {
  const CostCurve c = line();
  CHECK(c.at(0) == Approx(1e-6));
  CHECK(c.at(500) == Approx(1.5e-6));
  CHECK(c.at(2'000'000) == Approx(2.001e-3));  // beyond the last point: bandwidth 1 GB/s
  CHECK(c.bandwidth_bytes_per_s() == Approx(1e9));
  const CostCurve slow = c.with_latency(11e-6);
  CHECK(slow.at(0) == Approx(11e-6));
  CHECK(slow.at(1000) - slow.at(0) == Approx(c.at(1000) - c.at(0)));
  const CostCurve thin = c.with_bandwidth(1e8);
  CHECK(thin.at(0) == Approx(1e-6));
  CHECK(thin.at(1'000'000) == Approx(1e-6 + 1e-2));
  CHECK(c.scaled(2).at(500) == Approx(3e-6));
}

TEST_CASE("machine model: collectives at unmeasured sizes scale by log2 of the ranks") {
  CollectiveModel m;
  m.by_ranks[2] = CostCurve{{{8, 1e-6}}};
  m.by_ranks[4] = CostCurve{{{8, 2e-6}}};
  CHECK(m.at(2, 8) == Approx(1e-6));
  CHECK(m.at(4, 8) == Approx(2e-6));
  CHECK(m.at(16, 8) == Approx(4e-6));  // nearest is 4: log2(16)/log2(4) = 2
}

TEST_CASE("machine model: JSON round trip, and bad models are refused with the field named") {
  MachineModel m;
  m.name = "a";
  m.p2p = line();
  m.eager_limit_bytes = 65536;
  m.collectives["Allreduce"].by_ranks[2] = CostCurve{{{8, 1e-6}, {1024, 2e-6}}};
  m.compute = ComputeReference{0.01, 0.3};
  const auto back = machine_from_json(machine_to_json(m), "x");
  CHECK(back.name == "a");
  CHECK(back.p2p.points.size() == 3);
  CHECK(back.eager_limit_bytes == 65536);
  CHECK(back.collectives.at("Allreduce").at(2, 1024) == Approx(2e-6));
  REQUIRE(back.compute);
  CHECK(back.compute->compute_bound_s == Approx(0.3));

  auto refused = [](nlohmann::json doc) {
    try {
      machine_from_json(doc, "m.json");
    } catch (const MachineError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  auto doc = machine_to_json(m);
  CHECK_THAT(refused({{"schema", "mpidle-profile/2"}}), Catch::Contains("not a machine model"));
  auto no_p2p = doc;
  no_p2p.erase("p2p");
  CHECK_THAT(refused(no_p2p), Catch::Contains("p2p"));
  auto shrinking = doc;
  shrinking["p2p"]["intra_node"][1]["bytes"] = 0;
  CHECK_THAT(refused(shrinking), Catch::Contains("bytes must grow"));
  auto negative = doc;
  negative["p2p"]["intra_node"][0]["seconds"] = -1;
  CHECK_THAT(refused(negative), Catch::Contains("seconds"));
  auto zero_cpu = doc;
  zero_cpu["compute"]["memory_bound_s"] = 0;
  CHECK_THAT(refused(zero_cpu), Catch::Contains("compute"));
}

TEST_CASE(
    "machine model: the probe's spreads travel with the model, and a model without them reads") {
  MachineModel m;
  m.p2p = CostCurve{{{0, 2e-7, 0.04}, {65536, 7e-6, 0.08}}};
  m.compute = ComputeReference{0.024, 0.375, 0.013, 0.002};
  const auto doc = machine_to_json(m);
  const auto back = machine_from_json(doc, "x");
  CHECK(back.p2p.points[0].spread == Approx(0.04));
  CHECK(back.p2p.points[1].spread == Approx(0.08));
  REQUIRE(back.compute);
  CHECK(back.compute->memory_bound_spread == Approx(0.013));
  CHECK(back.compute->compute_bound_spread == Approx(0.002));
  // A model written by hand (or by an earlier probe) has none: 0, and none written back.
  auto plain = doc;
  plain["p2p"]["intra_node"][0].erase("spread");
  plain["compute"].erase("memory_bound_spread");
  plain["compute"].erase("compute_bound_spread");
  const auto old = machine_from_json(plain, "x");
  CHECK(old.p2p.points[0].spread == 0);
  REQUIRE(old.compute);
  CHECK(old.compute->memory_bound_spread == 0);
  CHECK_FALSE(machine_to_json(old)["compute"].contains("memory_bound_spread"));
  CHECK_FALSE(machine_to_json(old)["p2p"]["intra_node"][0].contains("spread"));
  auto negative = doc;
  negative["compute"]["compute_bound_spread"] = -0.1;
  CHECK_THROWS_AS(machine_from_json(negative, "x"), MachineError);
}

TEST_CASE(
    "machine model: version 2 message costs and protocols round trip, version 1 still reads") {
  MachineModel m;
  m.p2p = line();
  MessageCosts costs;
  costs.send_overhead = CostCurve{{{0, 9e-6, 0.02}, {4096, 11e-6}}};
  costs.receive_overhead = CostCurve{{{0, 2e-7}}};
  costs.protocols = {{0, false, true}, {4097, true, false}, {1 << 20, true, true}};
  m.messages = costs;
  const auto doc = machine_to_json(m);
  CHECK(doc["schema"] == "mpidle-machine/2");
  const auto back = machine_from_json(doc, "x");
  REQUIRE(back.messages);
  CHECK_FALSE(back.messages_inter_node);
  CHECK(back.messages->send_overhead.at(2048) == Approx(10e-6));
  CHECK(back.messages->send_overhead.points[0].spread == Approx(0.02));
  CHECK(back.messages->receive_overhead.at(1 << 20) == Approx(2e-7));
  // The segment a size falls in: eager below 4097 B, held to 1 MiB, then alone.
  CHECK_FALSE(back.messages->protocol_for(4096).rendezvous);
  CHECK(back.messages->protocol_for(4097).rendezvous);
  CHECK_FALSE(back.messages->protocol_for(65536).progresses);
  CHECK(back.messages->protocol_for(1 << 20).progresses);
  // The spread of an overhead curve shifts with the rest.
  CHECK(has_spread(back));
  CHECK(shifted_by_spread(back, 1).messages->send_overhead.at(0) == Approx(9e-6 * 1.02));
  CHECK_FALSE(back.messages->exchange);  // an earlier probe's: no exchange measured

  // The exchange both ways, when measured, travels and shifts with the rest.
  auto exchanged = m;
  exchanged.messages->exchange = CostCurve{{{0, 3e-6, 0.1}, {4096, 8e-6}}};
  const auto with_exchange = machine_from_json(machine_to_json(exchanged), "x");
  REQUIRE(with_exchange.messages->exchange);
  CHECK(with_exchange.messages->exchange->at(2048) == Approx(5.5e-6));
  CHECK(shifted_by_spread(with_exchange, 1).messages->exchange->at(0) == Approx(3.3e-6));

  // A version 1 model (an earlier probe's) still reads: no message costs.
  auto v1 = doc;
  v1["schema"] = "mpidle-machine/1";
  v1.erase("messages");
  CHECK_FALSE(machine_from_json(v1, "x").messages);

  auto refused = [&](const std::function<void(nlohmann::json&)>& spoil) {
    auto bad = doc;
    spoil(bad);
    try {
      machine_from_json(bad, "m.json");
    } catch (const MachineError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(refused([](auto& d) { d["messages"]["intra_node"].erase("send_overhead"); }),
             Catch::Contains("send_overhead"));
  CHECK_THAT(
      refused([](auto& d) { d["messages"]["intra_node"]["protocols"][0]["from_bytes"] = 8; }),
      Catch::Contains("first protocol must start at 0"));
  CHECK_THAT(
      refused([](auto& d) { d["messages"]["intra_node"]["protocols"][2]["from_bytes"] = 5; }),
      Catch::Contains("from_bytes must grow"));
  CHECK_THAT(
      refused([](auto& d) { d["messages"]["intra_node"]["protocols"][1]["protocol"] = "rdma"; }),
      Catch::Contains("\"eager\" or \"rendezvous\""));
  CHECK_THAT(
      refused([](auto& d) { d["messages"]["intra_node"]["protocols"][1]["progresses"] = 1; }),
      Catch::Contains("progresses"));
  CHECK_THAT(refused([](auto& d) { d["messages"] = 3; }), Catch::Contains("messages"));
  CHECK_THAT(refused([](auto& d) { d["messages"]["intra_node"]["exchange"] = 1; }),
             Catch::Contains("messages.intra_node.exchange"));
}

TEST_CASE("machine model: functions map to the measured collectives, CPUs compare by kernels") {
  CHECK(collective_model_for("MPI_Reduce") == "Allreduce");
  CHECK(collective_model_for("MPI_Iallreduce") == "Allreduce");
  CHECK(collective_model_for("MPI_Alltoallv") == "Alltoall");
  CHECK(collective_model_for("MPI_Bcast_c") == "Bcast");
  CHECK(collective_model_for("MPI_Send").empty());
  CHECK(cpu_ratio({1, 1}, {2, 2}) == Approx(2));
  CHECK(cpu_ratio({1, 1}, {4, 1}) == Approx(2));  // geometric mean
}

TEST_CASE("machine model: several probe launches give medians, spreads and their range") {
  // Three launches of one machine: the VM ran the second's exchanges 2.5 times slower.
  auto launch = [](double p2p_64k, double memory_s, double spread) {
    MachineModel m;
    m.name = "vm";
    m.p2p = CostCurve{{{0, 1e-6, spread}, {65536, p2p_64k, spread}}};
    m.eager_limit_bytes = 8192;
    m.collectives["Allreduce"].by_ranks[2] = CostCurve{{{8, 2e-6, 0.01}}};
    m.compute = ComputeReference{memory_s, 0.4, 0.01, 0.005};
    MessageCosts costs;
    costs.send_overhead = costs.receive_overhead = CostCurve{{{0, 1e-7}}};
    costs.protocols = {{0, false, true}};
    costs.exchange = CostCurve{{{0, 2 * p2p_64k}}};
    m.messages = costs;
    return m;
  };
  const auto merged = merge_launches(
      {launch(12e-6, 0.030, 0.02), launch(30e-6, 0.045, 0.03), launch(13e-6, 0.032, 0.01)});
  CHECK(merged.launches == 3);
  const auto& p = merged.p2p.points[1];
  CHECK(p.seconds == Approx(13e-6));
  CHECK(p.launch_spread == Approx((30e-6 - 12e-6) / 13e-6));
  CHECK(p.spread == Approx(0.5 * p.launch_spread));    // wider than any launch's own
  CHECK(merged.p2p.points[0].spread == Approx(0.02));  // equal launches: their own spread
  CHECK(merged.compute->memory_bound_s == Approx(0.032));
  CHECK(merged.compute->memory_bound_launch_spread == Approx(0.015 / 0.032));
  CHECK(merged.compute->compute_bound_launch_spread == 0);
  CHECK(merged.compute->compute_bound_spread == Approx(0.005));
  CHECK(merged.messages->exchange->at(0) == Approx(26e-6));  // the median launch's, too
  // The range survives the file.
  const auto back = machine_from_json(machine_to_json(merged), "merged");
  CHECK(back.launches == 3);
  CHECK(back.p2p.points[1].launch_spread == Approx(p.launch_spread));
  CHECK(back.compute->memory_bound_launch_spread == Approx(0.015 / 0.032));
  // Launches that measured other sizes are refused.
  auto other = launch(12e-6, 0.03, 0.02);
  other.p2p.points[1].bytes = 131072;
  CHECK_THROWS_AS(merge_launches({launch(12e-6, 0.03, 0.02), other}), MachineError);
  CHECK_THROWS_AS(merge_launches({}), MachineError);
}

TEST_CASE("machine model: a CPU ratio within the probes' spread is the same CPU") {
  const ComputeReference here{0.030, 0.40, 0.02, 0.02};
  ComputeReference again{0.033, 0.41, 0.02, 0.02};  // √(1.1 × 1.025) = 1.062, spread 4%
  CHECK(cpu_factor(here, again) == Approx(cpu_ratio(here, again)));
  CHECK(cpu_ratio(here, again) == Approx(1.0618).epsilon(1e-3));
  again.memory_bound_spread = 0.17;  // median of launches 34% apart: half their range
  CHECK(cpu_factor(here, again) == 1);
  const ComputeReference slower{0.060, 0.80, 0.17, 0.17};
  CHECK(cpu_factor(here, slower) == Approx(2));
}
