#pragma once
// Runs a command (usually mpiexec) with extra environment, capturing stdout and
// stderr, and kills it if it outlives its deadline.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "build_paths.hpp"
#include "model/profile_reader.hpp"

namespace mpidle::test {

struct Outcome {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

// With `signal_after_ms` > 0, `signal` goes to the command (the launcher) that long
// after its start, as a user or a batch system would send it.
Outcome run(const std::vector<std::string>& argv,
            const std::map<std::string, std::string>& env = {}, int timeout_s = 60,
            int signal_after_ms = 0, int signal = 0);

// Whether the tests run against Open MPI (else an MPI whose launcher forwards the
// environment, such as MPICH's).
bool testing_open_mpi();

// The environment that makes this MPI use shared memory ("shm") or TCP ("tcp")
// between the ranks of one node.
std::map<std::string, std::string> transport(const std::string& which);

// mpiexec -n N program args..., with libmpidle.so preloaded unless `preload` is false.
Outcome run_mpi(int ranks, const std::string& program, const std::vector<std::string>& args,
                std::map<std::string, std::string> env, bool preload = true);
// The same command line, for run() with its further options.
std::vector<std::string> mpi_command(int ranks, const std::string& program,
                                     const std::vector<std::string>& args,
                                     std::map<std::string, std::string>& env, bool preload = true);

// The whole file ("" when it cannot be read).
std::string read_text(const std::string& path);

// How many lines of `text` contain `needle`.
std::size_t count_lines_with(const std::string& text, const std::string& needle);

// The "rank R peak_rss_kib K" lines programs print after MPI_Finalize (many_calls
// with "peak"): K by R.
std::map<int, long> peak_rss_kib_by_rank(const std::string& out);

// A fresh, empty directory for one test's output.
std::string scratch_dir(const std::string& name);

// Ends a test that cannot run its check here (no root for network namespaces, a
// package missing): one line saying why, and exit status 77, which ctest counts as
// skipped (SKIP_RETURN_CODE), never as passed. After a failed check it ends the test
// as failed instead: a skip must not hide a failure.
[[noreturn]] void skip_test(const std::string& why);

// The run directories of a log tree (LOG_DIR/YYYY/MM/DD/<run>), and how many
// staging directories (runs not yet published) are left in it.
struct LogTreeRuns {
  std::vector<std::filesystem::path> runs;
  std::size_t staging = 0;
};
LogTreeRuns log_tree_runs(const std::filesystem::path& tree);

std::string example(const std::string& name);
std::string program(const std::string& name);

// The JSON object an example prints on stdout with --json.
nlohmann::json truth_of(const std::string& stdout_text);

const model::FunctionRow* function_row(const model::Profile& p, const std::string& name);
std::uint64_t calls_of(const model::Profile& p, const std::string& name);
// Wait of one rank at the callsites of one function (local or global minimum).
double rank_wait(const model::Profile& p, const std::string& function, std::int64_t rank);

}  // namespace mpidle::test
