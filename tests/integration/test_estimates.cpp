// The robust wait estimate against the exact wait of the trace analysis of the same
// run (the examples, and LAMMPS, a packaged program nobody here wrote), and
// `mpidle compare` telling the transfer a Wait held from waiting for a late
// partner, over shared memory against TCP.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;
namespace fs = std::filesystem;

namespace {

struct Totals {
  double trace = 0, robust = 0, minimum = 0;
};

Totals accuracy_of(const std::string& dir) {
  const auto doc = nlohmann::json::parse(read_text(dir + "/analysis.json"));
  const auto& a = doc["accuracy"];
  return {a["trace_s"].get<double>(), a["robust_s"].get<double>(),
          a["minimum_local_s"].get<double>()};
}

// The "dominated by" line of every callsite of `function` in `mpidle compare`'s text.
std::vector<std::string> verdicts_of(const std::string& text, const std::string& function) {
  std::vector<std::string> lines, out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (std::size_t i = 0; i + 2 < lines.size(); ++i) {
    if (lines[i].find(" " + function + " ") == std::string::npos ||
        lines[i + 2].find("dominated by") == std::string::npos) {
      continue;
    }
    out.push_back(lines[i + 2]);
  }
  return out;
}

}  // namespace

TEST_CASE("trace mode: the robust estimate within 10% of the exact wait on the examples", "[mpi]") {
  // Examples built to wait: a late sender, a static imbalance at an Allreduce, a halo
  // whose neighbours arrive late, and one whose late sender varies. The floor, 50 µs,
  // is well below what each waits (0.1-0.3 s).
  for (const auto& [name, path] : std::vector<std::pair<std::string, std::string>>{
           {"late_sender", example("late_sender")},
           {"imbalance_allreduce", example("imbalance_allreduce")},
           {"nonblocking_halo", example("nonblocking_halo")},
           {"halo_varying", program("halo_varying")}}) {
    // On a loaded node a descheduled sender stretches receives beyond their exact
    // wait: the minimum method then overshoots as far as the robust estimate, which
    // no estimate from durations can tell. Such a run measures the load: run again,
    // up to 3 times. A robust estimate off where the minimum is not fails at once.
    Totals t;
    for (int attempt = 0; attempt < 3; ++attempt) {
      const auto dir = scratch_dir("estimates_" + name + "_" + std::to_string(attempt));
      const auto r = run_mpi(2, path, {}, {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
      INFO(name << "\n" << r.err);
      REQUIRE(r.status == 0);
      t = accuracy_of(dir);
      const double allowed = 0.10 * t.trace + 50e-6;
      const bool loaded = t.robust - t.trace > allowed && t.minimum - t.trace > allowed;
      if (!loaded) break;
      WARN(name << ": both estimates above the exact wait by more than 10% (robust "
                << t.robust / t.trace << ", minimum " << t.minimum / t.trace << "): again");
    }
    INFO(name << ": exact " << t.trace << " s, robust " << t.robust << " s (ratio "
              << t.robust / t.trace << "), minimum " << t.minimum << " s (ratio "
              << t.minimum / t.trace << ")");
    REQUIRE(t.trace > 0.05);
    CHECK(std::abs(t.robust - t.trace) <= 0.10 * t.trace + 50e-6);
  }
}

TEST_CASE("LAMMPS over shared memory and TCP: compare tells the transfer from waiting", "[mpi]") {
  const std::string lammps = "/usr/bin/lmp";
  if (!testing_open_mpi()) {
    skip_test("Debian's LAMMPS is built for Open MPI");
  }
  if (!fs::exists(lammps)) {
    skip_test("LAMMPS is not installed (Debian package lammps)");
  }
  const std::string input = std::string(MPIDLE_SOURCE_DIR) + "/tests/integration/lammps_melt.in";
  std::map<std::string, std::string> dirs;
  for (const std::string transport : {"vader", "tcp"}) {
    const auto dir = scratch_dir("lammps_" + transport);
    dirs[transport] = dir;
    const auto r = run_mpi(
        2, lammps, {"-in", input, "-log", "none", "-screen", "none"},
        {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}, {"OMPI_MCA_btl", "self," + transport}});
    INFO(transport << "\n" << r.err);
    REQUIRE(r.status == 0);
    // Against the exact wait of the same run: the robust estimate is the closer one.
    const Totals t = accuracy_of(dir);
    INFO("exact " << t.trace << " s, robust " << t.robust << " s (ratio " << t.robust / t.trace
                  << "), minimum " << t.minimum << " s (ratio " << t.minimum / t.trace << ")");
    CHECK(std::abs(t.robust - t.trace) <= std::abs(t.minimum - t.trace) + 1e-3);
    // Within 30% of the exact wait, give or take the jitter of an 87 KiB transfer
    // above its usual time, 30 us for each send: that jitter, not a late partner, is
    // what the robust estimate still counts. LAMMPS's own waiting here is only what
    // a loaded 2-core machine makes of a balanced run, 0.06-0.5 s, so at its low end
    // the jitter alone is 40% of it.
    const auto p = model::read_profile(dir);
    const auto* send = function_row(p, "MPI_Send");
    REQUIRE(send);
    INFO(send->calls << " sends");
    CHECK(std::abs(t.robust - t.trace) <= 0.30 * t.trace + 30e-6 * double(send->calls));
    // The Waits that complete the ghost-atom receives hold their transfer: the
    // profile counts it as transfer (from the blocking sends of the same size), not
    // as waiting.
    const auto* wait = function_row(p, "MPI_Wait");
    REQUIRE(wait);
    INFO("MPI_Wait time " << wait->time_s << " s, robust wait " << wait->estimates.wait_s_robust
                          << " s, transfer " << wait->estimates.transfer_s << " s, minimum "
                          << wait->estimates.wait_s_minimum << " s");
    CHECK(wait->estimates.wait_s_robust < 0.5 * wait->time_s);
    if (transport == "tcp") CHECK(wait->estimates.transfer_s > 0.25 * wait->time_s);
  }
  // With the trace analyses (the default for traced runs) and with the profile's own
  // estimate, no MPI_Wait is called waiting for a late partner.
  for (const auto& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--estimate", "robust"}}) {
    std::vector<std::string> argv = {build_tree::mpidle_bin, "compare", dirs["vader"], dirs["tcp"]};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto c = run(argv);
    INFO(c.out << c.err);
    REQUIRE(c.status == 0);
    CHECK_THAT(c.out, Catch::Contains(extra.empty() ? "(wait: trace analysis)"
                                                    : "(wait: robust estimate)"));
    const auto verdicts = verdicts_of(c.out, "MPI_Wait");
    CHECK_FALSE(verdicts.empty());
    for (const auto& v : verdicts) CHECK(v.find("waiting/imbalance") == std::string::npos);
  }
}
