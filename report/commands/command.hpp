#pragma once
// The `mpidle` subcommands: one table drives dispatch, `mpidle --help` and errors.

#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/profile_reader.hpp"

namespace mpidle::report {

// Wrong command-line use or bad input: main prints "mpidle: <what>" and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Args = std::span<const std::string>;

struct Command {
  const char* name;
  const char* synopsis;
  const char* description;
  int (*run)(Args args);
};

int run_command(Args args);
int report_command(Args args);
int config_command(Args args);
int sync_command(Args args);
int summary_command(Args args);
int export_command(Args args);
int compare_command(Args args);
int analyze_command(Args args);
int probe_command(Args args);
int predict_command(Args args);
int logdir_command(Args args);
int fleet_command(Args args);
int status_command(Args args);

const std::vector<Command>& commands();

// A command's one positional argument: stores `arg` in `target`; throws for an
// unknown option or a second positional argument (`what` names the expected one).
void take_positional(const std::string& arg, std::string& target, const char* what);

// A number given for option `name`, else UsageError.
double number_option(const std::string& name, const std::string& text);

// The value of --top: a positive integer, else UsageError.
std::size_t top_option(const std::string& text);

// The directory of a run named on the command line (a run directory, or a
// file in it such as its profile.json); throws UsageError if it does not exist.
std::filesystem::path run_directory(const std::string& run);
// The profile of a trace run; throws UsageError for a profile-mode run, and
// model::TraceError for a trace file whose head or index is damaged or cut
// (TraceFile::checked). When the run lost trace records, says so on stderr in one
// line: every result drawn from the trace is incomplete.
enum class TraceFile { checked, unread };
model::Profile read_trace_run(const std::filesystem::path& dir,
                              TraceFile trace_file = TraceFile::checked);

// True if args hold -h/--help; then prints the command's help.
bool wants_help(const Command& command, Args args);

}  // namespace mpidle::report
