// The patterns real programs use, each against the waiting the program observed
// itself: the sender's start time travels inside each message (or rides in the
// collective as an MPI_MAX element), and on one host all ranks read one clock.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>

#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

double function_wait(const model::Profile& p, const std::string& name) {
  const auto* f = function_row(p, name);
  return f ? f->wait_s : -1;
}

// Trace mode's late-sender total from `mpidle analyze`.
double analyzed_late_sender(const std::string& dir) {
  const auto a = run({build_tree::mpidle_bin, "analyze", dir});
  INFO(a.err);
  REQUIRE(a.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir + "/analysis.json"));
  return doc["totals"]["late_sender"].get<double>();
}

}  // namespace

TEST_CASE("halo with a varying late sender: Waitall waits once per call", "[mpi]") {
  const auto dir = scratch_dir("truth_halo");
  const auto r = run_mpi(2, program("halo_varying"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const double expected = truth["waitall_wait_s"].get<double>();
  const double jitter = truth["completion_excess_s"].get<double>();
  REQUIRE(expected > 0.05);
  const auto p = model::read_profile(dir);
  CHECK(calls_of(p, "MPI_Waitall") == 2 * truth["waitall_per_rank"].get<std::uint64_t>());
  const double minimum = function_wait(p, "MPI_Waitall");
  const double traced = analyzed_late_sender(dir);
  INFO("truth " << expected << " s, minimum method " << minimum << " s (ratio "
                << minimum / expected << "), trace " << traced << " s (ratio " << traced / expected
                << "), observed jitter " << jitter << " s");
  CHECK(std::abs(minimum - expected) <= 0.10 * expected + jitter);
  // Counting each request of the Waitall from the call's start would give about
  // twice the truth here.
  CHECK(std::abs(traced - expected) <= 0.05 * expected);
  REQUIRE(p.sync);
  CHECK(p.sync->unmatched_sends == 0);
  CHECK(p.sync->unmatched_receives == 0);
}

TEST_CASE("polls are counted exactly and timed by sample, as the program timed them", "[mpi]") {
  // MPIDLE_POLL_SAMPLE=16 (the default) reads the clock in one poll of 16 and gives
  // the others their key's mean; 1 times every poll. Both count every call, and
  // their times agree with the program's own timing of its polls in the same run
  // (which also holds the wrapper's work and the program's clock reads, so mpidle's
  // time is the smaller: about half of it here). Runs are not compared with each
  // other: this VM's polls take 30 or 60 ns from one launch to the next. Without trace
  // windows: inside them every poll is timed.
  for (const std::string sample : {"1", "16"}) {
    const auto dir = scratch_dir("truth_polls_" + sample);
    const auto r = run_mpi(
        2, program("poll_loop"), {"--json"},
        {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_POLL_SAMPLE", sample}, {"MPIDLE_WINDOW_MS", "0"}});
    INFO("MPIDLE_POLL_SAMPLE=" << sample << "\n" << r.err);
    REQUIRE(r.status == 0);
    const auto truth = truth_of(r.out);
    const auto p = model::read_profile(dir);
    const auto* iprobe = function_row(p, "MPI_Iprobe");
    const auto* test = function_row(p, "MPI_Test");
    REQUIRE(iprobe);
    REQUIRE(test);
    CHECK(iprobe->calls == truth["iprobes"].get<std::uint64_t>());
    CHECK(iprobe->incomplete_calls == iprobe->calls);
    CHECK(test->calls == truth["tests"].get<std::uint64_t>());
    CHECK(test->calls - test->incomplete_calls == truth["completed_tests"].get<std::uint64_t>());
    const double observed_iprobe = truth["iprobe_s"].get<double>();
    const double observed_test = truth["test_s"].get<double>();
    INFO("Iprobe: mpidle " << iprobe->time_s << " s, the program " << observed_iprobe
                           << " s; Test: mpidle " << test->time_s << " s, the program "
                           << observed_test << " s");
    // Not left unextrapolated (1/16 of it) nor counted 16 times. About half the
    // program's time as a rule, but a sample of one poll in 16 can land on slowed
    // polls: CI once saw 1.52 times the program's Test time (8.0 against 5.3 ms; 0 of
    // 20 runs here since).
    CHECK(iprobe->time_s <= 2 * observed_iprobe);
    CHECK(iprobe->time_s >= 0.2 * observed_iprobe);
    CHECK(test->time_s <= 2 * observed_test);
    CHECK(test->time_s >= 0.2 * observed_test);
    CHECK(iprobe->wait_s <= iprobe->time_s);
    // How many polls were estimated: none with every poll timed, about 15 in 16 else.
    std::uint64_t untimed = 0;
    for (const auto& rank : p.ranks) untimed += rank.untimed_calls;
    const auto polls = iprobe->calls + test->calls;
    if (sample == "1") {
      CHECK(untimed == 0);
    } else {
      CHECK(untimed >= polls * 13 / 16);
      CHECK(untimed <= polls);
    }
  }
}

TEST_CASE("a large posted receive buffer: receives are classed by the bytes received", "[mpi]") {
  const auto dir = scratch_dir("truth_big_buffer");
  const auto r = run_mpi(2, program("big_buffer"), {"--json"}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const double expected = truth["recv_wait_s"].get<double>();
  const double jitter = truth["completion_excess_s"].get<double>();
  REQUIRE(expected > 0.02);
  const auto p = model::read_profile(dir);
  const double measured = rank_wait(p, "MPI_Recv", 1);
  INFO("truth " << expected << " s, minimum method " << measured << " s (ratio "
                << measured / expected << "), observed jitter " << jitter << " s");
  CHECK(std::abs(measured - expected) <= 0.10 * expected + jitter);
  // Two size classes on rank 1: 8 B (class 4) and 1 MiB (class 21), each with
  // as many receives as the program made, although every buffer was 1 MiB.
  std::map<std::int64_t, std::uint64_t> by_class;
  for (const auto& m : p.rank_minima) {
    if (m.function == "MPI_Recv" && m.rank == 1) by_class[m.size_class] += m.count;
  }
  CHECK(by_class[4] == truth["small_messages"].get<std::uint64_t>());
  CHECK(by_class[21] == truth["large_messages"].get<std::uint64_t>());
}

TEST_CASE("a sender late by the same time every step: every receive's waiting is wait", "[mpi]") {
  // Every receive waits about 5 ms, so the lowest cluster of the receiver's own
  // durations is waiting: the robust baseline alone called it cost and said 0. The
  // sends of the same size bound what a receive costs. Without trace windows: this is
  // the fallback the calibrated estimate keeps for keys the windows did not see
  // (test_calibration.cpp checks the calibrated estimate).
  const auto dir = scratch_dir("truth_steady_late_sender");
  const auto r = run_mpi(2, program("steady_late_sender"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_WINDOW_MS", "0"}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const double expected = truth["recv_wait_s"].get<double>();
  const double jitter = truth["completion_excess_s"].get<double>();
  REQUIRE(expected > 0.1);
  const auto p = model::read_profile(dir);
  const auto* recv = function_row(p, "MPI_Recv");
  REQUIRE(recv);
  CHECK(recv->calls == truth["messages"].get<std::uint64_t>() + 1);
  CHECK(p.run.wait_estimate == "robust");
  const double measured = rank_wait(p, "MPI_Recv", 1);
  const double minimum = recv->estimates.wait_s_minimum;
  INFO("truth " << expected << " s, robust estimate " << measured << " s (ratio "
                << measured / expected << "), minimum method " << minimum << " s (ratio "
                << minimum / expected << "), observed jitter " << jitter << " s");
  CHECK(std::abs(measured - expected) <= 0.10 * expected + jitter);
  // Never further from the truth than the published method.
  CHECK(std::abs(measured - expected) <= std::abs(minimum - expected) + 0.02 * expected + jitter);
}

TEST_CASE("collectives on a one-rank communicator do not set MPI_COMM_WORLD's minimum", "[mpi]") {
  const auto dir = scratch_dir("truth_subcomm");
  const auto r = run_mpi(2, program("subcomm_collectives"), {"--json"}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const double expected = truth["world_wait_s"].get<double>();
  const double jitter = truth["completion_excess_s"].get<double>();
  const auto p = model::read_profile(dir);
  // The world Allreduce is the one keyed by a communicator of 2 ranks.
  bool world_key = false, self_key = false;
  for (const auto& m : p.rank_minima) {
    if (m.function != "MPI_Allreduce") continue;
    world_key |= m.comm_size == 2 && m.count == truth["world_allreduces"].get<std::uint64_t>();
    self_key |= m.comm_size == 1 && m.count == truth["self_allreduces"].get<std::uint64_t>();
  }
  CHECK(world_key);
  CHECK(self_key);
  // Callsites: the world Allreduce is the later line of the two in the source.
  const model::CallsiteRow* world = nullptr;
  for (const auto& c : p.callsites) {
    if (c.function == "MPI_Allreduce" && (!world || c.frames[0].line > world->frames[0].line)) {
      world = &c;
    }
  }
  REQUIRE(world != nullptr);
  INFO("truth " << expected << " s, minimum method " << world->wait_s << " s, time "
                << world->time_s << " s, observed jitter " << jitter << " s");
  // Keyed by function and size alone, the world call's whole cost (time_s) would
  // be wait.
  CHECK(std::abs(world->wait_s - expected) <= std::max(0.10 * expected, 2e-3) + jitter);
}

TEST_CASE("a thousand wildcard receives completed in one Waitall: every message matched", "[mpi]") {
  const auto dir = scratch_dir("truth_many_requests");
  const auto r = run_mpi(2, program("many_requests"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const auto p = model::read_profile(dir);
  REQUIRE(p.sync);
  CHECK(p.sync->messages == truth["messages"].get<std::uint64_t>());
  CHECK(p.sync->unmatched_sends == 0);
  CHECK(p.sync->unmatched_receives == 0);
  // The receiving Waitall is classed by the bytes its 1,000 statuses received.
  const auto bytes = truth["waitall_received_bytes"].get<std::uint64_t>();
  const bool classed = std::any_of(p.rank_minima.begin(), p.rank_minima.end(), [&](const auto& m) {
    return m.function == "MPI_Waitall" && m.rank == 1 &&
           m.size_class == 64 - __builtin_clzll(bytes);
  });
  CHECK(classed);
  for (const auto& rank : p.ranks) CHECK(rank.untracked_requests == 0);
}

TEST_CASE("a loop the compiler unrolled is still one callsite and a loop", "[mpi]") {
  const auto dir = scratch_dir("truth_unrolled");
  const auto r = run_mpi(2, program("unrolled_barriers"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const auto inner = truth["inner"].get<int>();
  const auto p = model::read_profile(dir);
  std::vector<const model::CallsiteRow*> barriers;
  for (const auto& c : p.callsites) {
    if (c.function == "MPI_Barrier") barriers.push_back(&c);
  }
  REQUIRE(barriers.size() == 1);
  CHECK(barriers[0]->visits == 2ull * truth["outer"].get<std::uint64_t>() * inner);
  // The raw return addresses stay in profile.json: -O2 made one per iteration.
  const auto doc = nlohmann::json::parse(read_text(dir + "/profile.json"));
  for (const auto& c : doc["callsites"]) {
    if (c["function"] == "MPI_Barrier") CHECK(c["addresses"].size() == std::size_t(inner));
  }
  const auto summary = read_text(dir + "/summary.txt");
  INFO(summary);
  CHECK(std::regex_search(
      summary, std::regex("\\(CPU(\\d+)\\+Barrier\\1\\)\\[" + std::to_string(inner) + "\\]")));
  CHECK(std::regex_search(summary, std::regex("\\)\\[" + truth["outer"].dump() + "\\]")));
}

TEST_CASE("one-sided and file transfers record their bytes and cancelled receives match nothing",
          "[mpi]") {
  const auto dir = scratch_dir("truth_rma_io");
  const auto r = run_mpi(2, program("rma_io_cancel"), {dir + ".bin", "--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const auto p = model::read_profile(dir);
  auto keyed = [&](const std::string& fn, std::int64_t rank, std::uint64_t bytes,
                   std::int64_t peer) {
    return std::any_of(p.rank_minima.begin(), p.rank_minima.end(), [&](const auto& m) {
      return m.function == fn && m.rank == rank && m.peer == peer &&
             m.size_class == 64 - __builtin_clzll(bytes);
    });
  };
  // The Put from rank 0 targets rank 1 with the origin's bytes.
  CHECK(keyed("MPI_Put", 0, truth["put_bytes"].get<std::uint64_t>(), 1));
  CHECK(keyed("MPI_File_write_at", 0, truth["write_bytes"].get<std::uint64_t>(), -1));
  CHECK(keyed("MPI_File_write_at", 1, truth["write_bytes"].get<std::uint64_t>(), -1));
  REQUIRE(p.sync);
  CHECK(p.sync->cancelled == truth["cancelled"].get<std::uint64_t>());
  CHECK(p.sync->unmatched_receives == 0);
  std::filesystem::remove(dir + ".bin");
}

TEST_CASE("frequent small Allreduce without imbalance: jitter is not counted as wait", "[mpi]") {
  // 20,000 two-double Allreduce per rank; each rank knows when the last rank entered
  // each call (an MPI_MAX element), so it knows exactly how long it waited. The
  // minimum method books every call's jitter above the fastest call as wait (2.5-11
  // times the truth); the robust estimate subtracts the mean cost of the calls that
  // did not wait, and the calibrated one (the default) the mean cost of the calls
  // the trace windows saw, less their exact wait. The floor is how much that cost
  // varies (the program's cost_spread_s): what no baseline can tell from waiting.
  const auto dir = scratch_dir("truth_allreduce_rate");
  const auto r = run_mpi(2, program("allreduce_rate"), {"--json"}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const double expected = truth["allreduce_wait_s"].get<double>();
  const double spread = truth["cost_spread_s"].get<double>();
  const auto p = model::read_profile(dir);
  CHECK(p.run.wait_estimate == "calibrated");
  const auto* allreduce = function_row(p, "MPI_Allreduce");
  REQUIRE(allreduce);
  CHECK(allreduce->calls == 2 * truth["allreduce_per_rank"].get<std::uint64_t>() + 2);
  const double robust = allreduce->estimates.wait_s_robust;
  const double minimum = allreduce->estimates.wait_s_minimum;
  const double calibrated = allreduce->estimates.wait_s_calibrated;
  CHECK(allreduce->wait_s == calibrated);
  INFO("truth " << expected << " s, calibrated " << calibrated << " s (ratio "
                << calibrated / expected << "), robust " << robust << " s (ratio "
                << robust / expected << "), minimum " << minimum << " s (ratio "
                << minimum / expected << "), cost spread " << spread << " s");
  CHECK(std::abs(robust - expected) <= 0.10 * expected + spread);
  CHECK(std::abs(calibrated - expected) <= 0.10 * expected + spread);
  CHECK(robust <= minimum);
  // Calls that cannot wait have none: their time above the baseline is variation.
  for (const char* local : {"MPI_Comm_rank", "MPI_Comm_size"}) {
    const auto* f = function_row(p, local);
    REQUIRE(f);
    CHECK_FALSE(f->can_wait);
    CHECK(f->wait_s == 0);
    CHECK(f->estimates.variation_s >= 0);
  }
  // The distribution is in profile.json: every timed call of the callsite in its bins.
  const auto site = std::find_if(p.callsites.begin(), p.callsites.end(), [](const auto& c) {
    return c.function == "MPI_Allreduce" && c.visits > 1000;
  });
  REQUIRE(site != p.callsites.end());
  CHECK(model::count_of(site->durations) == site->visits);
  double binned = 0;
  for (const auto& b : site->durations) binned += b.sum_s;
  CHECK(binned == Approx(site->time_s).epsilon(1e-6));
}

TEST_CASE("1 MiB receives after a varying late sender: transfer is not wait", "[mpi]") {
  // A quarter of the receives find their sender on time: they take the transfer
  // alone, which the robust baseline takes as the cost of a receive that did not
  // wait. The floor is how much the transfer itself varied (transfer_spread_s).
  const auto dir = scratch_dir("truth_big_transfer");
  const auto r = run_mpi(2, program("big_transfer"), {"--json"}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const double expected = truth["recv_wait_s"].get<double>();
  const double spread = truth["transfer_spread_s"].get<double>();
  REQUIRE(expected > 0.05);
  const auto p = model::read_profile(dir);
  const auto* recv = function_row(p, "MPI_Recv");
  REQUIRE(recv);
  CHECK(recv->calls == truth["recv_per_rank"].get<std::uint64_t>());
  const double robust = recv->wait_s;
  INFO("truth " << expected << " s, robust " << robust << " s (ratio " << robust / expected
                << "), minimum " << recv->estimates.wait_s_minimum << " s (ratio "
                << recv->estimates.wait_s_minimum / expected << "), transfer spread " << spread
                << " s");
  CHECK(std::abs(robust - expected) <= 0.10 * expected + spread);
  // The baseline is the transfer of 1 MiB that the program saw, not the fastest one.
  const auto key = std::find_if(p.minima.begin(), p.minima.end(), [](const auto& m) {
    return m.function == "MPI_Recv" && m.size_class == 21;
  });
  REQUIRE(key != p.minima.end());
  const double transfer =
      (truth["recv_time_s"].get<double>() - expected) / truth["recv_per_rank"].get<double>();
  // Within half the mean transfer, or beyond that by twice the transfer's own mean
  // deviation: in one of this VM's speed states 1 MiB moves in 0.33 ms on average,
  // 0.07 ms apart from receive to receive, and the robust baseline reads 0.50 ms
  // (the same before and after 2026-11-28's finalize changes).
  const double deviation = spread / truth["recv_per_rank"].get<double>();
  INFO("baseline " << key->baseline_s << " s, minimum " << key->min_s << " s, mean transfer "
                   << transfer << " s, mean deviation " << deviation << " s");
  CHECK(key->baseline_s >= key->min_s);
  CHECK(std::abs(key->baseline_s - transfer) <= 0.5 * transfer + 2 * deviation);
}

TEST_CASE("POP efficiencies of known, unequal work, as the program observed them", "[mpi]") {
  // Rank r computes (1 + r) ms per iteration: on 2 ranks load balance 0.75. The
  // program measures its own useful time (its span less the time inside its MPI
  // calls) and span; mpidle's metrics come from its own wall and MPI times.
  const auto dir = scratch_dir("truth_pop_work");
  const auto r = run_mpi(2, program("pop_work"), {"--json"}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const auto p = model::read_profile(dir);
  const auto& e = p.efficiency;
  INFO("observed LB " << truth["load_balance"] << ", comm " << truth["communication"]
                      << ", parallel " << truth["parallel"] << "; mpidle LB " << e.load_balance
                      << ", comm " << e.communication << ", parallel " << e.parallel);
  CHECK(std::abs(e.load_balance - truth["load_balance"].get<double>()) <= 0.03);
  CHECK(std::abs(e.communication - truth["communication"].get<double>()) <= 0.03);
  CHECK(std::abs(e.parallel - truth["parallel"].get<double>()) <= 0.03);
  CHECK(e.parallel == Approx(e.load_balance * e.communication));
  // profile.json carries them as written.
  const auto doc = nlohmann::json::parse(read_text(dir + "/profile.json"));
  CHECK(doc["efficiency"]["parallel"].get<double>() == Approx(e.parallel));
}

TEST_CASE("POP efficiencies of transfers without imbalance: serialization 1, transfer as observed",
          "[mpi]") {
  // Equal work and a 4 MiB exchange every iteration: what the program loses to MPI
  // is the transfers, so its observed communication efficiency is its transfer
  // efficiency. mpidle analyze replays the trace on an ideal network for the split.
  const auto dir = scratch_dir("truth_pop_transfer");
  const auto r = run_mpi(2, program("pop_work"), {"--json", "--transfer"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  const auto a = run({build_tree::mpidle_bin, "analyze", dir});
  INFO(a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK_THAT(a.out, Catch::Contains("serialization"));
  const auto doc = nlohmann::json::parse(read_text(dir + "/analysis.json"));
  REQUIRE(doc.contains("efficiency"));
  const auto& e = doc["efficiency"];
  const double observed = truth["communication"].get<double>();
  INFO("observed communication " << observed << ", load balance " << truth["load_balance"]
                                 << "; mpidle " << e.dump());
  CHECK(observed < 0.9);  // the transfers do take a share of the run
  CHECK(std::abs(e["load_balance"].get<double>() - truth["load_balance"].get<double>()) <= 0.03);
  CHECK(std::abs(e["communication"].get<double>() - observed) <= 0.03);
  CHECK(e["serialization"].get<double>() >= 0.95);
  CHECK(std::abs(e["transfer"].get<double>() - observed) <= 0.03);
  CHECK(e["communication"].get<double>() ==
        Approx(e["serialization"].get<double>() * e["transfer"].get<double>()).epsilon(1e-6));
  // The text report shows the split from the analysis.
  const auto report = run({build_tree::mpidle_bin, "report", dir});
  CHECK_THAT(report.out, Catch::Contains("serialization"));
}
