// Trace mode end to end: real ranks, a test-only clock skew that the profiler
// must measure and remove, the merged trace read back with the project's reader.
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>

#include "model/trace_file.hpp"
#include "process.hpp"
#include "sync/trace_sync.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {
std::uint64_t main_records(const model::RankTrace& r) {
  std::uint64_t n = 0;
  for (const auto& rec : r.records) n += rec.extra == 0;
  return n;
}

// The clock condition on the synchronized times, checked independently of the
// statistics the profiler wrote.
std::uint64_t violations_in_synced(const model::Trace& t) {
  sync::RankTimes synced;
  for (const auto& r : t.ranks) synced.emplace_back(r.synced.begin(), r.synced.end());
  return sync::count_violations(sync::build_event_graph(t), synced);
}
}  // namespace

TEST_CASE("trace: a skewed clock is measured, and synchronization removes every violation",
          "[mpi]") {
  const auto dir = scratch_dir("trace_skew");
  // Rank 1's trace clock runs 20 ms behind and 50 ppm fast.
  const auto r = run_mpi(2, example("late_sender"), {},
                         {{"MPIDLE_OUTPUT", dir},
                          {"MPIDLE_TRACE", "1"},
                          {"MPIDLE_TEST_CLOCK_OFFSET_US", "-20000"},
                          {"MPIDLE_TEST_CLOCK_DRIFT_PPM", "50"}});
  REQUIRE(r.status == 0);
  const auto p = model::read_profile(dir);
  CHECK(p.run.mode == "trace");
  REQUIRE(p.trace);
  REQUIRE(p.sync);
  // Receives complete microseconds after their sends: 20 ms of skew reverses them.
  CHECK(p.sync->violations_raw > 0);
  CHECK(p.sync->violations_after == 0);
  // 20 ms of skew is real: the offsets are kept, and they repair what they can.
  CHECK(p.sync->correction == "offsets");
  CHECK(p.sync->violations_before < p.sync->violations_raw);
  CHECK(p.sync->reference_clock_ranks == 1);  // rank 0 only
  REQUIRE(p.sync->offsets.size() == 2);
  // Cristian's method is right to within half the round trip it kept (a busy
  // node can make that milliseconds right after MPI_Init).
  const auto& measured = p.sync->offsets[1];
  INFO("measured offset " << measured.init_offset_s << " s, round trips " << measured.rtt_s
                          << " and " << measured.final_rtt_s << " s over " << measured.span_s
                          << " s, drift " << measured.drift);
  CHECK(std::abs(measured.init_offset_s + 20e-3) <= measured.rtt_s / 2 + 20e-6);
  // The drift is right to within both measurements' errors over the time between
  // them; where those are small, it must be the 50 ppm injected.
  REQUIRE(measured.span_s > 0);
  const double drift_error = (measured.rtt_s + measured.final_rtt_s) / 2 / measured.span_s;
  CHECK(std::abs(measured.drift - 50e-6) <= drift_error + 10e-6);
  if (drift_error < 30e-6) CHECK(std::abs(measured.drift - 50e-6) < 40e-6);

  // The merged trace holds exactly the calls each rank recorded.
  REQUIRE(p.trace->events_by_rank.size() == 2);
  const auto t = model::read_trace(std::filesystem::path(dir) / p.trace->file);
  REQUIRE(t.ranks.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(p.trace->events_by_rank[i] == p.ranks[i].calls);
    CHECK(main_records(t.ranks[i]) == p.ranks[i].calls);
    CHECK(t.ranks[i].synced.size() == 2 * t.ranks[i].records.size());
  }
  CHECK(violations_in_synced(t) == 0);
  // And the receives all match sends: the graph has one edge per message.
  std::size_t messages = 0;
  const auto graph = sync::build_event_graph(t);
  for (const auto& e : graph.edges()) messages += e.message;
  CHECK(messages >= 60);
}

TEST_CASE("trace: ranks of one node read one clock: offset 0 at both ends, the round trip kept",
          "[mpi]") {
  // 4 ranks: rank 3's edge is to rank 2, two levels below rank 0 (composition).
  const auto dir = scratch_dir("trace_one_node");
  const auto r =
      run_mpi(4, example("late_sender"), {}, {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto p = model::read_profile(dir);
  REQUIRE(p.sync);
  REQUIRE(p.sync->offsets.size() == 4);
  for (std::size_t i = 1; i < 4; ++i) {
    INFO("rank " << i);
    const auto& o = p.sync->offsets[i];
    // Not measured into noise: exactly 0, where Cristian's method on a busy node
    // leaves tens of nanoseconds to microseconds.
    CHECK(o.init_offset_s == 0);
    CHECK(o.final_offset_s == 0);
    CHECK(o.drift == 0);
    // The round trip to the parent stays measured: the latency bound comes from it.
    CHECK(o.rtt_s > 0);
  }
  CHECK(p.sync->violations_after == 0);
}

TEST_CASE("trace: collectives and non-blocking halos synchronize too", "[mpi]") {
  // The skew must reverse causes and effects: in imbalance_allreduce rank 1 enters
  // last (so its clock runs ahead), in the halo rank 1 waits for rank 0 (behind).
  for (const auto& [name, skew_us] :
       {std::pair{"imbalance_allreduce", "20000"}, std::pair{"nonblocking_halo", "-20000"}}) {
    INFO(name);
    const auto dir = scratch_dir(std::string("trace_") + name);
    const auto r = run_mpi(
        2, example(name), {},
        {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}, {"MPIDLE_TEST_CLOCK_OFFSET_US", skew_us}});
    REQUIRE(r.status == 0);
    const auto p = model::read_profile(dir);
    REQUIRE(p.sync);
    CHECK(p.sync->violations_raw > 0);
    CHECK(p.sync->violations_after == 0);
    const auto t = model::read_trace(std::filesystem::path(dir) / p.trace->file);
    CHECK(violations_in_synced(t) == 0);
    for (std::size_t i = 0; i < t.ranks.size(); ++i)
      CHECK(main_records(t.ranks[i]) == p.ranks[i].calls);
  }
}

TEST_CASE("trace: PAPI counts each compute burst (software event, so it works in VMs)", "[mpi]") {
  const auto dir = scratch_dir("trace_papi_sw");
  const auto r = run_mpi(
      2, example("late_sender"), {"--json"},
      {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}, {"MPIDLE_PAPI_EVENTS", "perf::TASK-CLOCK"}});
  REQUIRE(r.status == 0);
  const auto p = model::read_profile(dir);
  REQUIRE(p.trace);
  if (!p.trace->papi_available) {
    skip_test("PAPI cannot count perf::TASK-CLOCK here: " + p.trace->papi_reason);
  }
  // The sender busy-waits the scheduled delays between its sends: its bursts' CPU
  // time (TASK-CLOCK, in ns) is at least the CPU time its busy waits got, as the
  // program measured it (less than the delays when other load shares the cores);
  // the receiver's is nearly nothing.
  const auto truth = truth_of(r.out);
  const double busy_s = truth["scheduled_wait_s"].get<double>();
  const double busy_cpu_s = truth["sender_busy_cpu_s"].get<double>();
  REQUIRE(p.trace->papi_burst_totals.size() == 2);
  const double sender_s = static_cast<double>(p.trace->papi_burst_totals[0][0]) * 1e-9;
  const double receiver_s = static_cast<double>(p.trace->papi_burst_totals[1][0]) * 1e-9;
  INFO("sender bursts " << sender_s << " s, receiver bursts " << receiver_s << " s, busy-wait "
                        << busy_s << " s, of which the sender got " << busy_cpu_s << " s CPU");
  // TASK-CLOCK is CPU time; now and then it also takes in time of the MPI
  // library's own helper threads, hence the looser upper bound.
  CHECK(sender_s > 0.9 * busy_cpu_s);
  CHECK(sender_s < 1.5 * busy_s);
  CHECK(receiver_s < 0.1 * busy_s);
  // The trace carries one count per record.
  const auto t = model::read_trace(std::filesystem::path(dir) / p.trace->file);
  REQUIRE(t.counter_names == std::vector<std::string>{"perf::TASK-CLOCK"});
  for (const auto& rank : t.ranks) CHECK(rank.counters.size() == rank.records.size());
}

TEST_CASE("trace: PAPI events that cannot be counted: the run goes on and says why", "[mpi]") {
  const auto dir = scratch_dir("trace_papi");
  const auto r = run_mpi(2, example("late_sender"), {},
                         {{"MPIDLE_OUTPUT", dir},
                          {"MPIDLE_TRACE", "1"},
                          {"MPIDLE_PAPI_EVENTS", "PAPI_TOT_INS,PAPI_TOT_CYC"}});
  REQUIRE(r.status == 0);
  const auto p = model::read_profile(dir);
  REQUIRE(p.trace);
  CHECK(p.trace->papi_events == std::vector<std::string>{"PAPI_TOT_INS", "PAPI_TOT_CYC"});
  INFO(p.trace->papi_reason);
  if (p.trace->papi_available) {
    WARN("this machine has hardware counters; the no-counter path is not exercised here");
    return;
  }
  CHECK_FALSE(p.trace->papi_reason.empty());
  const auto report = run({build_tree::mpidle_bin, "report", dir});
  CHECK_THAT(report.out, Catch::Contains("no PAPI counters: " + p.trace->papi_reason));
  const auto t = model::read_trace(std::filesystem::path(dir) / p.trace->file);
  CHECK(t.counter_names.empty());
  for (const auto& rank : t.ranks) CHECK(rank.counters.empty());
}

TEST_CASE("trace: a small memory cap spills whole chunks and loses nothing", "[mpi]") {
  const auto dir = scratch_dir("trace_spill");
  const auto r =
      run_mpi(2, program("many_calls"), {"40000"},
              {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}, {"MPIDLE_TRACE_MEM", "1"}});
  REQUIRE(r.status == 0);
  const auto p = model::read_profile(dir);
  REQUIRE(p.trace);
  CHECK(p.trace->spills > 0);
  for (std::size_t i = 0; i < p.ranks.size(); ++i) {
    CHECK(p.ranks[i].calls >= 40000);
    CHECK(p.trace->events_by_rank[i] == p.ranks[i].calls);
  }
  // Spill files are gone afterwards.
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    CHECK(f.path().filename().string().rfind("spill-", 0) != 0);
  }
}

TEST_CASE("trace: at finalize each rank holds its own trace only, rank 0 too", "[mpi]") {
  // Rank 1 records 10^6 calls (61 MiB of records) under a 4 MiB cap, rank 0 a
  // thousand. At finalize each rank synchronizes its own events in the parallel
  // replay and writes them itself: rank 0 may not grow with rank 1's trace (it
  // grew by twice that when it merged every rank's trace), and rank 1 by its own
  // records and their corrected times (80 bytes a record, some slack for the
  // allocator), never by anyone else's. Peaks read by the program after MPI_Finalize.
  // Past its cap rank 1 finalizes out of core: those arrays are files mapped shared,
  // resident as file pages the kernel may reclaim, not anonymous memory; the same
  // run under a cap above its trace holds them in anonymous memory.
  const auto small_dir = scratch_dir("trace_cap_small");
  const auto big_dir = scratch_dir("trace_cap_big");
  const auto in_core_dir = scratch_dir("trace_cap_in_core");
  const std::map<std::string, std::string> env{{"MPIDLE_TRACE", "1"}, {"MPIDLE_TRACE_MEM", "4"}};
  auto with_output = [&](const std::string& dir) {
    auto e = env;
    e["MPIDLE_OUTPUT"] = dir;
    return e;
  };
  const auto small =
      run_mpi(2, program("many_calls"), {"1000", "peak", "last"}, with_output(small_dir));
  const auto big =
      run_mpi(2, program("many_calls"), {"1000000", "peak", "last"}, with_output(big_dir));
  REQUIRE(small.status == 0);
  REQUIRE(big.status == 0);
  const auto base = peak_rss_kib_by_rank(small.out), peak = peak_rss_kib_by_rank(big.out);
  INFO(small.out << big.out);
  REQUIRE(base.count(0) == 1);
  REQUIRE(base.count(1) == 1);
  REQUIRE(peak.count(0) == 1);
  REQUIRE(peak.count(1) == 1);
  const auto p = model::read_profile(big_dir);
  REQUIRE(p.trace);
  CHECK(p.trace->spills > 0);
  CHECK(p.trace->lost_records == 0);
  CHECK(p.trace->events_by_rank.at(1) == p.ranks.at(1).calls);
  CHECK(p.ranks.at(1).calls >= 1000000);
  CHECK(p.ranks.at(0).calls < 2000);
  // A million events: rank 0 says on stderr what the finalize is doing; the
  // small run says nothing of it.
  CHECK_THAT(big.err,
             Catch::Contains("mpidle(0): finalize: synchronizing the clocks of 1.0 M events"));
  CHECK_THAT(big.err, Catch::Contains("mpidle(0): finalize: writing the trace of 1.0 M events"));
  CHECK_THAT(big.err, Catch::Contains("mpidle(0): finalize: done with 1.0 M events"));
  CHECK(small.err.find("finalize:") == std::string::npos);
  CHECK(big.out.find("finalize") == std::string::npos);
  const long trace_kib = static_cast<long>(p.ranks.at(1).calls * sizeof(model::TraceRecord) / 1024);
  const long rank0_growth = peak.at(0) - base.at(0), rank1_growth = peak.at(1) - base.at(1);
  INFO("rank 0 grew by " << rank0_growth << " KiB, rank 1 by " << rank1_growth
                         << " KiB, for rank 1's trace of " << trace_kib << " KiB");
  CHECK(rank0_growth < 16 * 1024);
  CHECK(rank0_growth < trace_kib / 4);
  CHECK(rank1_growth < trace_kib * 80 / 64 + 16 * 1024);
  // The profile counts that finalize peak in the rank's memory: at least the records
  // it held, and what the program saw its own peak grow by.
  const long finalize_kib = static_cast<long>(p.ranks.at(1).finalize_memory_bytes / 1024);
  INFO("rank 1's finalize added " << finalize_kib << " KiB by the profile");
  CHECK(finalize_kib >= trace_kib);
  CHECK(finalize_kib >= rank1_growth - 4 * 1024);
  CHECK(finalize_kib <= rank1_growth + rank1_growth / 4 + 4 * 1024);
  CHECK(p.ranks.at(1).memory_bytes > p.ranks.at(1).finalize_memory_bytes);
  // Out of core: rank 1 only, its arrays in file pages.
  CHECK(p.trace->out_of_core_ranks == 1);
  const long anonymous_kib = static_cast<long>(p.ranks.at(1).finalize_anonymous_bytes / 1024);
  INFO("of which " << anonymous_kib << " KiB anonymous");
  CHECK(anonymous_kib < trace_kib / 8);
  CHECK(big.err.find("out of core") == std::string::npos);
  // In core, for contrast: at least the corrected times (16 bytes a record) anonymous.
  auto in_core_env = with_output(in_core_dir);
  in_core_env["MPIDLE_TRACE_MEM"] = "1024";
  const auto in_core = run_mpi(2, program("many_calls"), {"1000000", "peak", "last"}, in_core_env);
  REQUIRE(in_core.status == 0);
  const auto q = model::read_profile(in_core_dir);
  REQUIRE(q.trace);
  CHECK(q.trace->out_of_core_ranks == 0);
  INFO("in core: " << q.ranks.at(1).finalize_anonymous_bytes / 1024 << " KiB anonymous");
  CHECK(static_cast<long>(q.ranks.at(1).finalize_anonymous_bytes / 1024) >= trace_kib / 4);
  // The whole trace is in the file all the same, synchronized.
  const auto t = model::read_trace(std::filesystem::path(big_dir) / "trace.mpidle");
  REQUIRE(t.ranks.size() == 2);
  CHECK(t.ranks[1].records.size() >= 1000000);
  CHECK(t.ranks[1].synced.size() == 2 * t.ranks[1].records.size());
}

TEST_CASE("trace: out of core, a rank whose records are messages keeps its replay state in files",
          "[mpi]") {
  // Both ranks exchange 10^5 messages (MPI_Sendrecv around the ring: 2·10^5 records,
  // 12 MiB each) under a 4 MiB cap. Besides the records, the replay holds state per
  // message (the matching items, each message's times both ways): out of core that
  // is in files too, so the finalize adds a fraction of the trace in anonymous
  // memory; under a cap above the trace the same run holds it all in the heap. Ground truth for the
  // trace's content: the program's own call count, and every receive matched.
  const auto ooc_dir = scratch_dir("trace_ooc_messages");
  const auto heap_dir = scratch_dir("trace_heap_messages");
  auto env = [](const std::string& dir, const char* cap) {
    return std::map<std::string, std::string>{
        {"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}, {"MPIDLE_TRACE_MEM", cap}};
  };
  const auto ooc =
      run_mpi(2, program("many_calls"), {"100000", "-", "exchange"}, env(ooc_dir, "4"));
  const auto heap =
      run_mpi(2, program("many_calls"), {"100000", "-", "exchange"}, env(heap_dir, "1024"));
  REQUIRE(ooc.status == 0);
  REQUIRE(heap.status == 0);
  const auto p = model::read_profile(ooc_dir), q = model::read_profile(heap_dir);
  REQUIRE(p.trace);
  REQUIRE(q.trace);
  CHECK(p.trace->out_of_core_ranks == 2);
  CHECK(q.trace->out_of_core_ranks == 0);
  const auto t = model::read_trace(std::filesystem::path(ooc_dir) / "trace.mpidle");
  for (std::size_t r = 0; r < 2; ++r) {
    INFO("rank " << r);
    CHECK(p.ranks[r].calls >= 100000);
    CHECK(p.trace->events_by_rank[r] == p.ranks[r].calls);
    REQUIRE(t.ranks[r].records.size() >= 200000);
    CHECK(t.ranks[r].synced.size() == 2 * t.ranks[r].records.size());
    const long trace_kib =
        static_cast<long>(t.ranks[r].records.size() * sizeof(model::TraceRecord) / 1024);
    const long ooc_kib = static_cast<long>(p.ranks[r].finalize_anonymous_bytes / 1024);
    const long heap_kib = static_cast<long>(q.ranks[r].finalize_anonymous_bytes / 1024);
    INFO("trace " << trace_kib << " KiB; anonymous at finalize: " << ooc_kib << " KiB out of core, "
                  << heap_kib << " KiB in the heap");
    // Out of core: under 0.1 MiB here (what the heap freed goes back between
    // stages), against 26 MiB in the heap.
    CHECK(ooc_kib < trace_kib / 8);
    CHECK(heap_kib >= trace_kib);
  }
  REQUIRE(p.sync);
  CHECK(p.sync->messages >= 200000);
  CHECK(p.sync->unmatched_sends == 0);
  CHECK(p.sync->unmatched_receives == 0);
  CHECK(p.sync->violations_after == 0);
}

TEST_CASE("trace: a spill directory in memory (tmpfs) keeps the finalize in the heap, and says so",
          "[mpi]") {
  // Files in tmpfs would take as much memory as the heap: past their cap the ranks
  // then finalize in the heap, rank 0 says why in one line (the others are quiet),
  // and the trace is whole all the same.
  struct statfs fs {};
  if (::statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC) {
    skip_test("no tmpfs at /dev/shm on this machine");
  }
  const std::string dir = "/dev/shm/mpidle-test-ooc-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  const auto r =
      run_mpi(2, program("many_calls"), {"100000"},
              {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}, {"MPIDLE_TRACE_MEM", "1"}});
  REQUIRE(r.status == 0);
  INFO(r.err);
  CHECK(count_lines_with(r.err, "out of core") == 1);
  CHECK_THAT(r.err, Catch::Contains("of its arrays out of core (" + dir + " is in memory (tmpfs)"));
  const auto p = model::read_profile(dir);
  REQUIRE(p.trace);
  CHECK(p.trace->out_of_core_ranks == 0);
  const auto t = model::read_trace(std::filesystem::path(dir) / "trace.mpidle");
  for (std::size_t rank = 0; rank < 2; ++rank) {
    CHECK(p.trace->events_by_rank.at(rank) == p.ranks.at(rank).calls);
    CHECK(t.ranks.at(rank).records.size() >= 100000);
    CHECK(t.ranks.at(rank).synced.size() == 2 * t.ranks.at(rank).records.size());
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("trace: a full call table: the trace has every call, the report says how many more",
          "[mpi]") {
  const auto dir = scratch_dir("trace_full_table");
  // 80 callsites, 64 table entries.
  const auto r =
      run_mpi(2, program("many_callsites"), {},
              {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}, {"MPIDLE_TABLE_ENTRIES", "64"}});
  REQUIRE(r.status == 0);
  const auto p = model::read_profile(dir);
  REQUIRE(p.trace);
  REQUIRE(p.trace->events_by_rank.size() == 2);
  for (std::size_t rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    CHECK(p.ranks[rank].dropped_calls > 0);
    CHECK(p.trace->events_by_rank[rank] == p.ranks[rank].calls + p.ranks[rank].dropped_calls);
  }
  const auto report = run({build_tree::mpidle_bin, "report", dir});
  CHECK_THAT(report.out,
             Catch::Contains("the trace also holds the " +
                             std::to_string(p.ranks[0].dropped_calls + p.ranks[1].dropped_calls) +
                             " calls the full call table did not count"));
}

TEST_CASE("mpidle sync re-synchronizes a trace run post-mortem", "[mpi]") {
  const auto dir = scratch_dir("trace_resync");
  REQUIRE(
      run_mpi(
          2, example("late_sender"), {},
          {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}, {"MPIDLE_TEST_CLOCK_OFFSET_US", "-300"}})
          .status == 0);
  const auto r =
      run({build_tree::mpidle_bin, "sync", dir, "--gamma", "0.99", "--latency", "0.000002"});
  INFO(r.err);
  CHECK(r.status == 0);
  const auto p = model::read_profile(dir);
  REQUIRE(p.sync);
  CHECK(p.sync->gamma == 0.99);
  CHECK(p.sync->min_latency_s == Approx(2e-6));
  CHECK(p.sync->violations_after == 0);
  const auto t = model::read_trace(std::filesystem::path(dir) / "trace.mpidle");
  CHECK(violations_in_synced(t) == 0);

  // A profile-only run has nothing to synchronize; bad options are refused.
  const auto plain = scratch_dir("trace_none");
  REQUIRE(run_mpi(2, program("exit_code"), {}, {{"MPIDLE_OUTPUT", plain}}).status == 3);
  CHECK(run({build_tree::mpidle_bin, "sync", plain}).status == 2);
  CHECK(run({build_tree::mpidle_bin, "sync", dir, "--gamma", "1.5"}).status == 2);
}

TEST_CASE("trace: the profiler's set-up in MPI_Init is profiler time, not the application's",
          "[mpi]") {
  const auto dir = scratch_dir("trace_setup");
  const auto r =
      run_mpi(2, program("hub_exchange"), {}, {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const auto truth = truth_of(r.out);
  REQUIRE(truth.contains("elapsed_s"));
  const double elapsed = truth["elapsed_s"];  // rank 0, from MPI_Init's end to MPI_Finalize
  const auto p = model::read_profile(dir);
  REQUIRE(p.sync);
  INFO("program " << elapsed << " s, profile wall " << p.ranks.at(0).wall_s << " s, set-up "
                  << p.run.setup_s << " s");
  // Timer calibration and the first offset measurement take milliseconds; they
  // were counted as the application computing before.
  CHECK(p.run.setup_s > 2e-3);
  CHECK(p.ranks.at(0).wall_s >= elapsed);
  // Were the set-up counted, the profile's wall would exceed the program's time by all
  // of it; what it exceeds it by is the few instructions between MPI_Init's end and
  // the program's clock read (and the same before MPI_Finalize), more only when other
  // load takes the core right there (8.9 ms of a 16 ms set-up once, under load).
  CHECK(p.ranks.at(0).wall_s - elapsed < p.run.setup_s);
  // Whatever the clocks did, synchronization never leaves more violations than
  // the raw clocks had; offsets it rejected made more.
  CHECK(p.sync->violations_before <= p.sync->violations_raw);
  if (p.sync->correction == "none") {
    CHECK(p.sync->violations_with_offsets > p.sync->violations_raw);
  }
  CHECK_FALSE(p.sync->clock_reason.empty());
  CHECK_FALSE(p.sync->latency_reason.empty());

  // Which mpidle wrote it, and for which MPI, as `mpidle --version` says.
  const auto version = run({build_tree::mpidle_bin, "--version"});
  REQUIRE(version.status == 0);
  const auto doc = nlohmann::json::parse(read_text(dir + "/profile.json"));
  const std::string v = doc["run"]["mpidle"]["version"],
                    built_for = doc["run"]["mpidle"]["built_for"];
  CHECK(version.out.rfind("mpidle " + v + " (profiler built for " + built_for + ")", 0) == 0);
  CHECK(built_for == (testing_open_mpi() ? "openmpi" : "mpich"));
  const auto analysis = nlohmann::json::parse(read_text(dir + "/analysis.json"));
  CHECK(analysis["producer"] == "mpidle " + v);
}
