// The examples under the profiler: the profiler's estimates against the truth that
// each example computes from the delays it injected.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

TEST_CASE("late_sender: the receiver's wait matches the injected delays", "[mpi]") {
  const auto dir = scratch_dir("late_sender");
  const auto r = run_mpi(2, example("late_sender"), {"--json"}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  REQUIRE(truth.contains("receiver_wait_s"));
  const double expected = truth["receiver_wait_s"].get<double>();
  const auto p = model::read_profile(dir);

  CHECK(p.run.ranks == 2);
  CHECK(calls_of(p, "MPI_Recv") == truth["messages_per_pair"].get<std::uint64_t>());
  CHECK(calls_of(p, "MPI_Send") == truth["messages_per_pair"].get<std::uint64_t>());
  const double measured = rank_wait(p, "MPI_Recv", 1);
  // Time the receives spent after their message was sent: what the program saw of
  // interruptions, which the minimum method counts as wait (jitter).
  const double jitter = truth["completion_excess_s"].get<double>();
  INFO("expected " << expected << " s, measured " << measured << " s, observed jitter " << jitter
                   << " s");
  CHECK(std::abs(measured - expected) <= std::max(0.10 * expected, 50e-6) + jitter);

  // The receive is attributed to its source line, and to the sender as peer.
  const auto recv = std::find_if(p.callsites.begin(), p.callsites.end(),
                                 [](const auto& c) { return c.function == "MPI_Recv"; });
  REQUIRE(recv != p.callsites.end());
  REQUIRE_FALSE(recv->frames.empty());
  CHECK_THAT(recv->frames[0].file, Catch::EndsWith("late_sender.c"));
  CHECK(recv->frames[0].function == "main");
  CHECK(recv->frames[0].line > 0);
  const bool peer_is_sender =
      std::any_of(p.rank_minima.begin(), p.rank_minima.end(), [](const auto& m) {
        return m.function == "MPI_Recv" && m.rank == 1 && m.peer == 0 && m.size_class == 4;
      });
  CHECK(peer_is_sender);
}

TEST_CASE("imbalance_allreduce: the global minimum finds the static imbalance", "[mpi]") {
  const auto dir = scratch_dir("imbalance");
  const auto r = run_mpi(2, example("imbalance_allreduce"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_GLOBAL_MIN", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  REQUIRE(truth.contains("total_wait_s"));
  const double expected = truth["total_wait_s"].get<double>();
  const auto p = model::read_profile(dir);
  CHECK(p.run.minimum == "global");
  const auto* allreduce = function_row(p, "MPI_Allreduce");
  REQUIRE(allreduce != nullptr);
  CHECK(allreduce->calls == 2 * truth["iterations"].get<std::uint64_t>());
  const double jitter = truth["completion_excess_s"].get<double>();
  const double robust = allreduce->estimates.wait_s_robust;
  INFO("expected " << expected << " s, global " << allreduce->wait_s_global_min << " s, local "
                   << allreduce->estimates.wait_s_minimum << " s, robust " << robust
                   << " s, observed jitter " << jitter << " s");
  CHECK(std::abs(allreduce->wait_s_global_min - expected) <= 0.15 * expected + jitter);
  // The robust baseline is global too: it finds the static imbalance as well.
  CHECK(std::abs(robust - expected) <= 0.10 * expected + jitter);
}

TEST_CASE("nonblocking_halo: exact call counts and the neighbours' wait in Waitall", "[mpi]") {
  const auto dir = scratch_dir("halo");
  const auto r = run_mpi(2, example("nonblocking_halo"), {"--json"}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  REQUIRE(truth.contains("waitall_per_rank"));
  const auto p = model::read_profile(dir);
  CHECK(calls_of(p, "MPI_Irecv") == 2 * truth["irecv_per_rank"].get<std::uint64_t>());
  CHECK(calls_of(p, "MPI_Isend") == 2 * truth["isend_per_rank"].get<std::uint64_t>());
  CHECK(calls_of(p, "MPI_Waitall") == 2 * truth["waitall_per_rank"].get<std::uint64_t>());

  // Waitall of 4 requests: peer -1, size class of the 32 bytes it moved (16 sent
  // by its two Isends, 16 received by its two Irecvs, read from the statuses).
  const bool keyed = std::any_of(p.rank_minima.begin(), p.rank_minima.end(), [](const auto& m) {
    return m.function == "MPI_Waitall" && m.peer == -1 && m.size_class == 6;
  });
  CHECK(keyed);
  // Rank 1 waits for its slow neighbour in every iteration: only the global minimum
  // (rank 0 never waits) can see all of it.
  const auto* waitall = function_row(p, "MPI_Waitall");
  REQUIRE(waitall != nullptr);
  const double expected = truth["total_wait_s"].get<double>();
  const double jitter = truth["completion_excess_s"].get<double>();
  INFO("expected " << expected << " s, Waitall global-minimum wait " << waitall->wait_s_global_min
                   << " s, scheduled " << truth["scheduled_wait_s"].get<double>()
                   << " s, observed jitter " << jitter << " s");
  CHECK(std::abs(waitall->wait_s_global_min - expected) <= 0.15 * expected + jitter);
}

TEST_CASE("callsite depth 2 records the caller's caller through libunwind", "[mpi]") {
  const auto dir = scratch_dir("depth2");
  const auto r = run_mpi(2, example("late_sender"), {"--json"},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_CALLSITE_DEPTH", "2"}});
  REQUIRE(r.status == 0);
  const auto messages = truth_of(r.out)["messages_per_pair"].get<std::uint64_t>();
  const auto p = model::read_profile(dir);
  CHECK(p.run.callsite_depth == 2);
  REQUIRE_FALSE(p.callsites.empty());
  for (const auto& c : p.callsites) {
    INFO(c.function);
    REQUIRE(c.frames.size() == 2);
    if (c.function == "MPI_Recv") {
      CHECK(c.frames[0].function == "main");
      CHECK(c.frames[1].module != c.frames[0].module);  // main's caller lives in libc
    }
    // The truth is gathered by a helper that the compiler inlines into main: the
    // frame names the innermost source function and its own file.
    if (c.frames[0].function == "example_gather_times") {
      CHECK_THAT(c.frames[0].file, Catch::EndsWith("example_support.h"));
    }
  }
  CHECK(calls_of(p, "MPI_Recv") == messages);
}

TEST_CASE("ranks of other communicators are reported as world ranks", "[mpi]") {
  const auto dir = scratch_dir("split");
  const auto r = run_mpi(2, program("comm_split_peers"), {}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(r.status == 0);
  const auto p = model::read_profile(dir);
  auto peer_of = [&](const std::string& fn, std::int64_t rank) {
    std::int64_t peer = -99;
    for (const auto& m : p.rank_minima) {
      if (m.function == fn && m.rank == rank) peer = m.peer;
    }
    return peer;
  };
  CHECK(peer_of("MPI_Send", 0) == 1);
  CHECK(peer_of("MPI_Send", 1) == 0);
  CHECK(peer_of("MPI_Recv", 0) == 1);  // MPI_ANY_SOURCE, resolved from the status
  CHECK(peer_of("MPI_Recv", 1) == 0);
  CHECK(calls_of(p, "MPI_Comm_split") == 2);
}

TEST_CASE("completion calls: peers, sizes and calls that completed nothing", "[mpi]") {
  // 65536: every poll after a thread's first goes untimed, so completions are
  // recorded on the polls' untimed path; 16: on either path.
  const std::string sample = GENERATE("16", "65536");
  const auto dir = scratch_dir("completion" + sample);
  const auto r = run_mpi(2, program("completion_calls"), {},
                         {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_POLL_SAMPLE", sample}});
  INFO("MPIDLE_POLL_SAMPLE=" << sample << "\n" << r.err);
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  REQUIRE(truth.contains("failed_tests"));
  const auto p = model::read_profile(dir);
  auto count = [&](const char* name) { return truth[name].get<std::uint64_t>(); };

  const auto* test = function_row(p, "MPI_Test");
  REQUIRE(test != nullptr);
  CHECK(test->calls == count("tests"));
  CHECK(test->incomplete_calls == count("failed_tests"));
  const auto* testall = function_row(p, "MPI_Testall");
  REQUIRE(testall != nullptr);
  CHECK(testall->calls == count("testalls"));
  CHECK(testall->incomplete_calls == count("failed_testalls"));
  const auto* iprobe = function_row(p, "MPI_Iprobe");
  REQUIRE(iprobe != nullptr);
  CHECK(iprobe->calls == count("iprobes"));
  CHECK(iprobe->incomplete_calls == count("failed_iprobes"));
  const std::pair<const char*, std::string> more_polls[] = {
      {"MPI_Testany", "testanys"}, {"MPI_Testsome", "testsomes"}, {"MPI_Improbe", "improbes"}};
  for (const auto& [fn, key] : more_polls) {
    const auto* row = function_row(p, fn);
    REQUIRE(row != nullptr);
    CHECK(row->calls == count(key.c_str()));
    CHECK(row->incomplete_calls == count(("failed_" + key).c_str()));
  }
  CHECK(calls_of(p, "MPI_Waitany") == 1);
  CHECK(calls_of(p, "MPI_Start") == 6);
  CHECK(calls_of(p, "MPI_Wait") == 3 + 1 + 3 + 1);

  auto has_minimum = [&](const char* fn, std::int64_t rank, std::int64_t peer, std::int64_t sc) {
    return std::any_of(p.rank_minima.begin(), p.rank_minima.end(), [&](const auto& m) {
      return m.function == fn && m.rank == rank && m.peer == peer && m.size_class == sc;
    });
  };
  // The Test that completed: the Irecv of 16 doubles (128 bytes → class 8) from rank 0.
  CHECK(has_minimum("MPI_Test", 1, 0, 8));
  // The ones that found nothing, if any did: a preempted rank 1 can miss rank 0's
  // 2 ms head start on this VM, and then its first Test already completes.
  if (count("failed_tests") > 0) CHECK(has_minimum("MPI_Test", 1, -1, -1));
  // Testall completing two receives of 16 bytes each: no single peer, 32 bytes → class 6.
  CHECK(has_minimum("MPI_Testall", 1, -1, 6));
  // Iprobe with MPI_ANY_SOURCE that found the message names the sender.
  CHECK(has_minimum("MPI_Iprobe", 1, 0, 0));
  // Wildcard receives completed under ignored statuses: the sender and the bytes
  // from the status mpidle passed. Testany: 5 doubles (40 bytes -> class 6).
  CHECK(has_minimum("MPI_Testany", 1, 0, 6));
  // Testsome: 3 doubles (24 bytes -> class 5).
  CHECK(has_minimum("MPI_Testsome", 1, 0, 5));
  // Improbe names the sender; the Mrecv of its message gets 7 doubles (56 -> 6).
  CHECK(has_minimum("MPI_Improbe", 1, 0, 0));
  CHECK(has_minimum("MPI_Mrecv", 1, 0, 6));
  // Persistent requests keep their peer and size over every round (24 bytes → 5).
  CHECK(has_minimum("MPI_Wait", 1, 0, 5));
  CHECK(has_minimum("MPI_Wait", 0, 1, 5));
  CHECK(has_minimum("MPI_Start", 0, 1, 5));
}

TEST_CASE("compare: the callsite whose injected delay changed is flagged, with the right ratio",
          "[mpi]") {
  const auto dir_a = scratch_dir("compare_a");
  const auto dir_b = scratch_dir("compare_b");
  const auto ra = run_mpi(2, example("late_sender"), {"--json"}, {{"MPIDLE_OUTPUT", dir_a}});
  const auto rb = run_mpi(2, example("late_sender"), {"--json", "--delay-scale", "2.5"},
                          {{"MPIDLE_OUTPUT", dir_b}});
  REQUIRE(ra.status == 0);
  REQUIRE(rb.status == 0);
  // The truth: what the receiver really waited in each run, by its own clock, and
  // how long its receives took beyond that (processing, and the core lost to
  // other load, which the minimum method cannot tell from waiting).
  struct Band {
    double low = 0, high = 0;
  };
  auto band_of = [](const Outcome& r, const std::string& dir) {
    const auto truth = truth_of(r.out);
    const double waited = truth["receiver_wait_s"], beyond = truth["completion_excess_s"];
    double fastest = 0;  // the receiver's visits × its fastest receive
    for (const auto& m : model::read_profile(dir).rank_minima) {
      if (m.rank == 1 && m.function == "MPI_Recv")
        fastest += static_cast<double>(m.count) * m.min_s;
    }
    INFO("observed wait " << waited << " s, beyond it " << beyond << " s");
    return Band{waited - fastest - 1e-3, waited + beyond + 1e-3};
  };
  const Band a = band_of(ra, dir_a), b = band_of(rb, dir_b);
  const double truth = truth_of(rb.out)["receiver_wait_s"].get<double>() /
                       truth_of(ra.out)["receiver_wait_s"].get<double>();
  const auto c = run({build_tree::mpidle_bin, "compare", dir_a, dir_b});
  INFO(c.out << c.err);
  REQUIRE(c.status == 0);
  CHECK(c.out.find("note: same program, different arguments") != std::string::npos);
  // Other load that stalls the sender's delays makes the receiver wait that long in
  // both runs: when the program itself saw its waits differ by less than half the
  // change of its delays, there is no changed callsite to find.
  if (truth < 1.5) {
    WARN("the receiver's real waits differ by x" << truth
                                                 << " only (other load): comparison not checked");
  } else {
    const auto at = c.out.find(">> changed most: MPI_Recv at late_sender.c:");
    REQUIRE(at != std::string::npos);
    const std::string line = c.out.substr(at, c.out.find('\n', at) - at);
    const auto w = line.find("(wait x");
    REQUIRE(w != std::string::npos);
    const double ratio = std::stod(line.substr(w + 7));
    // The ratio lies where the two runs' bands allow (within 10% of the truth on a
    // quiet machine), and a delay 2.5 times longer cannot look shorter.
    INFO("ratio " << ratio << ", truth " << truth << ", A in [" << a.low << ", " << a.high
                  << "] s, B in [" << b.low << ", " << b.high << "] s");
    CHECK(ratio >= std::max(b.low, 0.0) / a.high * 0.99);
    CHECK(ratio <= b.high / std::max(a.low, 1e-6) * 1.01);
    CHECK(ratio > 1.2);
    CHECK(c.out.find("dominated by waiting/imbalance") != std::string::npos);
  }

  // Another program is stated, not silently matched.
  const auto dir_c = scratch_dir("compare_c");
  REQUIRE(run_mpi(2, example("loop_nest"), {"--outer", "3"}, {{"MPIDLE_OUTPUT", dir_c}}).status ==
          0);
  const auto other = run({build_tree::mpidle_bin, "compare", dir_a, dir_c});
  CHECK(other.status == 0);
  CHECK(other.out.find("different programs: A runs late_sender, B runs loop_nest") !=
        std::string::npos);
  CHECK(run({build_tree::mpidle_bin, "compare", dir_a}).status == 2);
  CHECK(run({build_tree::mpidle_bin, "compare", dir_a, "/nonexistent"}).status == 2);
}

TEST_CASE("statuses: the fields libmpidle reads give the portable calls' bytes and flags",
          "[mpi]") {
  // profiler/wrappers/status_count.h against MPI_Get_elements_x and MPI_Test_cancelled, on
  // every datatype of the tests, probes, an empty and a cancelled request, and
  // counts beyond 32 bits. Both Debian MPIs have a known field.
  const auto r = run_mpi(2, program("status_count"), {}, {});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const std::regex line(R"(field (\S+) compared (\d+) mismatches (\d+))");
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, line));
  CHECK(m[1] == (testing_open_mpi() ? "_ucount" : "count_lo"));
  CHECK(std::stoi(m[2]) == 36);
  CHECK(std::stoi(m[3]) == 0);
  // And libmpidle records what they say: the 5 MiB receives as 5 MiB.
  const auto dir = scratch_dir("status_count");
  REQUIRE(run_mpi(2, program("status_count"), {}, {{"MPIDLE_OUTPUT", dir}}).status == 0);
  const auto p = model::read_profile(dir);
  const auto* recv = function_row(p, "MPI_Recv");
  REQUIRE(recv);
  CHECK(recv->calls == 10);
  std::uint64_t expected = 0;
  for (std::uint64_t b : {0ull, 1ull, 100ull, 28ull, 8000ull, 3ull * sizeof(long double), 320ull,
                          9ull * 16ull, 264ull, 5ull << 20}) {
    expected += b;
  }
  CHECK(recv->bytes == static_cast<double>(expected));
}
