#include "report/commands/command.hpp"

#include <charconv>
#include <cstdio>
#include <string>

#include "model/trace_file.hpp"
#include "report/text/text_report.hpp"

namespace mpidle::report {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"run",
       "mpidle run [-o|--output DIR] [--wait-estimate E] [--callsite-depth N] [--trace] -- "
       "LAUNCHER "
       "ARGS...\n"
       "  e.g. mpidle run -- mpiexec -n 4 ./app input.dat\n\n"
       "Runs the command with libmpidle.so preloaded into every MPI process, then\n"
       "prints where the profile is and a five-line summary on stderr. Exits with\n"
       "the command's exit status.\n\n"
       "  -o, --output DIR    run directory (default mpidle-<app>-<YYYYmmdd-HHMMSS>)\n"
       "  --wait-estimate E   the wait the reports show: calibrated (default), robust,\n"
       "                      minimum, global\n"
       "  --global-min        the same as --wait-estimate global\n"
       "  --metadata K=V,...  the user's own pairs for the job record\n"
       "  --callsite-depth N  stack frames per callsite (1 = caller only; >1 uses libunwind)\n"
       "  --trace             also record a trace: one merged, clock-synchronized file\n"
       "  --pcontrol P        MPI_Pcontrol's convention: pause (mpiP's, default), regions\n"
       "                      (IPM's named code regions, docs/regions.md) or ignore\n\n"
       "Python programs (mpi4py) run as any other, the interpreter under the launcher:\n"
       "  mpidle run -- mpiexec -n 4 /usr/bin/python3 app.py\n"
       "Their callsites are the Python lines that called mpi4py, e.g.\n"
       "app.py:14 (exchange); --callsite-depth N gives the N innermost Python frames.\n"
       "This needs the CPython version mpidle was built against (3.11 on Debian 12);\n"
       "under another, callsites name mpi4py's module and rank 0 says why.\n",
       "profile an MPI program (mpidle run -- mpiexec -n 4 ./app)", run_command},
      {"report",
       "mpidle report RUN_DIR_OR_PROFILE_JSON [--top N] [--estimate E] [--html OUT]\n\n"
       "Prints who waited where: per-rank wall/MPI/wait, the top callsites by wait\n"
       "with source locations, and the functions table.\n\n"
       "  --top N             callsites and functions to list (default 10)\n"
       "  --estimate E        wait estimate to show: robust, minimum (each rank's own\n"
       "                      fastest call) or global (any rank's); default: the run's\n"
       "                      (--minimum local|global is the same)\n"
       "  --html OUT          write one self-contained HTML page instead: per-rank\n"
       "                      time bars, top callsites, the wait estimates side by\n"
       "                      side, call duration histograms, a rank x callsite heatmap\n"
       "                      of wait, functions, and for trace runs the loop summary\n",
       "print the text report of a run", report_command},
      {"status",
       "mpidle status RUN_DIR|LOG_DIR [--top N] [--ranks N]\n\n"
       "A job that has not finished (running, hung or killed), from the checkpoints\n"
       "its ranks write (MPIDLE_CHECKPOINT, every 600 s by default, the first at\n"
       "60 s): ranks, time so far, MPI and wait share, the top callsites, and what\n"
       "each rank is doing. A rank that made no MPI call across a checkpoint's time\n"
       "shows the call it is in and for how long no call has ended, e.g.\n"
       "  rank 3      in MPI_Recv; no MPI call ended for 14 min 2 s\n"
       "A rank silent for more than 2.5 intervals is gone (killed, or its node).\n"
       "Given a log tree (or any directory above runs), one line per unfinished run.\n"
       "Reads files only; never touches the job.\n\n"
       "  --top N    callsites to list (default 5)\n"
       "  --ranks N  rank lines to print, stalled and silent ranks first (default 16)\n",
       "what a running, hung or killed job is doing, from its checkpoints", status_command},
      {"sync",
       "mpidle sync RUN_DIR [--gamma G] [--latency S] [--raw-clocks]\n\n"
       "Re-runs clock synchronization of a trace run (linear offset interpolation,\n"
       "then the controlled logical clock) and rewrites the trace's synchronized\n"
       "timestamps and the \"sync\" section of profile.json. Offsets that make more\n"
       "clock-condition violations than the raw clocks had are rejected, and a\n"
       "measured latency is never longer than the shortest matched message or\n"
       "collective (from its last arrival to a member's exit).\n\n"
       "  --gamma G     clock speed after a forward jump, 0 < G <= 1 (default 0.99999)\n"
       "  --latency S   minimum message latency in seconds (default: as measured)\n"
       "  --raw-clocks  no offset correction: the raw local clocks\n",
       "re-synchronize a trace run's clocks", sync_command},
      {"summary",
       "mpidle summary RUN_DIR [--detail low|high] [--rank R] [--symbols S]\n\n"
       "Prints the loop summary of a trace run: per group of ranks whose event\n"
       "streams compress alike, one line per top-level element, e.g.\n"
       "  ((CPU3+Sendrecv3)[6] + CPU4+Allreduce4)[40]: 16267\n"
       "A+B is A then B, X[n] n iterations of X, CPU<n> the computation before the\n"
       "call at callsite n; the number after ':' is the element's time in us per rank.\n\n"
       "  --detail high  per symbol: count, total, mean, min and max time\n"
       "  --rank R       only the group rank R belongs to\n"
       "  --symbols S    re-summarize the trace with call symbols by callsite, peer,\n"
       "                 size or peer,size (the run used MPIDLE_SUMMARY_SYMBOLS)\n",
       "print the loop summary of a trace run", summary_command},
      {"analyze",
       "mpidle analyze RUN_DIR [--top N]\n\n"
       "Exact wait states of a trace run, on its synchronized clock: late sender,\n"
       "late receiver, wait at NxN collectives, wait at barrier, late broadcast,\n"
       "early reduce and early scan, per callsite and rank. Next to them, per\n"
       "callsite, the minimum method's estimates (local and global minimum) with\n"
       "their difference and the likely reason. Writes RUN_DIR/analysis.json and\n"
       "prints the report; mpidle report shows it from then on.\n",
       "exact wait states of a trace run, and the minimum method's accuracy", analyze_command},
      {"probe",
       "mpidle probe [--output FILE] [--name NAME] [--quick] [--launches N]\n"
       "             -- LAUNCHER ARGS...\n"
       "  e.g. mpidle probe -o here.json -- mpiexec -n 2\n\n"
       "Measures this machine's model for mpidle predict with a built-in MPI\n"
       "microbenchmark: message time over sizes (within a node, and between nodes\n"
       "when the ranks span two), the eager limit, Barrier, Bcast, Allreduce,\n"
       "Allgather and Alltoall over sizes and communicator sizes, and two compute\n"
       "kernels. Takes seconds; writes FILE (default machine.json).\n\n"
       "  --name NAME  the machine's name in predictions (default: rank 0's host)\n"
       "  --quick      fewer sizes, shorter batches\n"
       "  --launches N N launches (1-20): every point and kernel the median of them,\n"
       "               its spread at least half their range, their range kept apart\n"
       "               (a machine, not a moment: VMs change speed between launches)\n",
       "measure a machine model for predictions", probe_command},
      {"predict",
       "mpidle predict RUN_DIR --machine FILE [--machine FILE ...] [--source FILE]\n"
       "               [--cpu-factor F] [--latency S] [--bandwidth B] [--top N]\n"
       "               [--against TARGET_RUN] [--engine simgrid|mpidle]\n\n"
       "Replays a trace run on other machines' models: compute bursts scaled by the\n"
       "CPU ratio, messages and collectives costed by the target's curves, every call\n"
       "at the earliest time its dependencies allow. On SimGrid where mpidle was built\n"
       "with it (mpidle-simgrid beside mpidle): links shared by the transfers at once,\n"
       "shared or split-duplex as the probe measured. Prints per target the predicted\n"
       "wall time and where it goes (compute, latency, bandwidth, waiting), the top\n"
       "callsites, and a ranking of the targets; writes RUN_DIR/prediction.json.\n\n"
       "  --machine FILE  a target's model (mpidle probe, or written by hand)\n"
       "  --source FILE   the model of the machine the run was traced on: the CPU\n"
       "                  ratio is the targets' kernel times over its own\n"
       "  --cpu-factor F  compute bursts take F times their measured time (overrides\n"
       "                  the ratio; 0.5 = a CPU twice as fast; also --cpu-scale).\n"
       "                  Two models of one host and CPU model compute at 1\n"
       "  --latency S     every target's 0-byte message time, in seconds\n"
       "  --bandwidth B   every target's bandwidth, in bytes per second\n"
       "  --against RUN   a run of the same program on the (one) target machine,\n"
       "                  profiled or traced: predicted against measured per\n"
       "                  category (compute, latency- and bandwidth-bound MPI,\n"
       "                  waiting), rank and callsite, and the largest miss named\n"
       "  --engine E      simgrid (the default where built) or mpidle (its own replay)\n",
       "predict a trace run on other machines", predict_command},
      {"compare",
       "mpidle compare RUN_A RUN_B [--top N] [--estimate E] [--html OUT]\n"
       "               [--target MACHINE]\n\n"
       "The same application on two clusters (or two configurations), side by side:\n"
       "wall, computation, MPI, wait and processing (time - wait) with ratios B/A;\n"
       "per function and per callsite (matched by source location), and for every\n"
       "callsite what dominates it: waiting/imbalance, latency (small messages) or\n"
       "bandwidth (large messages), i.e. whether faster links would help at all.\n"
       "A traced run's wait is the exact wait of its analysis.json; otherwise the\n"
       "estimate's, and time a Wait may have spent holding a transfer is never\n"
       "called waiting for a late partner. Where the costlier run's analysis has\n"
       "root causes (traced runs), waiting is split by why the partner was late:\n"
       "its computation (imbalance: the call it came before and the ranks), its\n"
       "own communication (the call and the ranks), or its own waiting (the\n"
       "callsite it was propagated from).\n"
       "POP's efficiency table follows (A the reference: global efficiency, parallel\n"
       "efficiency, load balance, communication efficiency and, for analysed traces,\n"
       "serialization and transfer; computation scalability, for runs of one problem,\n"
       "split into instruction and IPC scalability where both runs were traced with\n"
       "MPIDLE_PAPI_EVENTS=PAPI_TOT_INS,PAPI_TOT_CYC and PAPI counted).\n"
       "Different programs, arguments, rank counts or MPI libraries are stated.\n\n"
       "  --top N        functions and callsites to list (default 10)\n"
       "  --estimate E   use this wait estimate (robust, minimum, global) on both\n"
       "                 sides, traced or not (default: the one run A chose)\n"
       "  --html OUT     also write the comparison as one self-contained HTML page\n\n"
       "Either run may be a prediction (RUN/prediction.json from mpidle predict): the\n"
       "run as predicted on a target, so that measured here and predicted there line\n"
       "up. --target MACHINE picks one of several targets (default the first).\n",
       "compare two runs (clusters, configurations)", compare_command},
      {"export",
       "mpidle export RUN_DIR [--chrome OUT.json [--ranks LIST] [--window FROM:TO]] [--otf2 "
       "DIR]\n\n"
       "Writes a trace run's timeline for other tools, on the synchronized clock.\n\n"
       "  --chrome OUT.json   Chrome Trace Event format (Perfetto UI, chrome://tracing):\n"
       "                      one process per rank, MPI calls (with peer, bytes, tag and\n"
       "                      callsite) and the compute between them as slices, and an\n"
       "                      arrow from every send to its receive\n"
       "  --ranks LIST        only these ranks (e.g. 0-3,8), whose records alone are read;\n"
       "                      arrows between them only\n"
       "  --window FROM:TO    only slices that overlap FROM to TO seconds after the run's\n"
       "                      first event (either side may be left empty)\n"
       "  --otf2 DIR          an OTF2 archive, DIR/traces.otf2 (Vampir, Scalasca,\n"
       "                      otf2-print): a location per rank, a region per MPI\n"
       "                      function with the callsite as an attribute, MPI message\n"
       "                      and collective records, communicators, clock properties\n",
       "export a trace run's timeline (Chrome Trace Event format, OTF2)", export_command},
      {"logdir",
       "mpidle logdir init LOG_DIR --writers GROUP --admin-group GROUP [--days N] [--from "
       "YYYY-MM-DD]\n"
       "mpidle logdir clean LOG_DIR [--older-than HOURS]\n\n"
       "Makes the site-wide log tree that MPIDLE_LOG_DIR names: LOG_DIR/YYYY/MM/DD for\n"
       "N days from today (default 366; run it again before they run out, e.g. from\n"
       "cron). Jobs of the writers group create their run directories in a day\n"
       "directory; each run is readable by its user and the admin group only, no\n"
       "user can rename or remove another's, and nothing is world-writable (POSIX\n"
       "ACLs: the filesystem must have them). Safe to run again over an existing\n"
       "tree. GROUP is a name or a number.\n\n"
       "  --writers GROUP      the users whose jobs log (e.g. users)\n"
       "  --admin-group GROUP  who reads every log (the fleet's ingester)\n"
       "  --days N             day directories to make (1..3660)\n"
       "  --from DATE          the first day (default today)\n\n"
       "clean removes the staging directories of runs whose ranks all died before\n"
       "writing anything, once older than HOURS (default 336, two weeks: longer than\n"
       "any job, whose run is written there until it ends).\n",
       "set up a site-wide log tree for MPIDLE_LOG_DIR", logdir_command},
      {"fleet",
       "mpidle fleet ingest LOG_DIR... --db DB [--service-account USER]... [--trust-records]\n"
       "mpidle fleet report --db DB [--since DATE] [--until DATE] [--user U] [--account A]\n"
       "                    [--app APP] [--json | --html FILE]\n\n"
       "Many jobs at once. ingest reads every run under the log trees (each run's\n"
       "job.json, else its profile.json, else its ranks' checkpoints: a killed job,\n"
       "incomplete) into DB: a SQLite file (made if missing), or\n"
       "a postgresql:// URI for a centre-wide server. It is incremental and\n"
       "idempotent, and several may run at once; a corrupt, partial or foreign file\n"
       "gets one line and is skipped and counted. A run speaks for the user its record\n"
       "names only if its record and directory belong to that user (in a log tree any\n"
       "user can make directories): one that does not gets one line, is refused and\n"
       "counted. Files of root, of the ingesting account and of each --service-account\n"
       "(the account that writes a site's logs for its users) may name anyone;\n"
       "--trust-records checks no owner.\n"
       "report prints core-hours and waiting per application, user and account, the\n"
       "jobs and callsites that waited most, the distribution of wait share, trends\n"
       "per day and week, and the applications whose wait share rose against their\n"
       "own history. DATE is YYYY-MM-DD (UTC; --until excludes its day).\n\n"
       "  --json       the same report as JSON on stdout\n"
       "  --html FILE  one self-contained page with plots\n",
       "look across many jobs: a fleet database and its report", fleet_command},
      {"config",
       "mpidle config [--markdown]\n\nLists every MPIDLE_* environment setting with its type, "
       "default, valid\n"
       "values and the `mpidle run` option that sets it. --markdown prints the table of\n"
       "docs/configuration.md.\n",
       "list the MPIDLE_* settings", config_command},
  };
  return table;
}

void take_positional(const std::string& arg, std::string& target, const char* what) {
  if (!arg.empty() && arg[0] == '-') throw UsageError("unknown option " + arg);
  if (!target.empty()) throw UsageError(std::string("one ") + what + ", please");
  target = arg;
}

std::size_t top_option(const std::string& text) {
  std::size_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || p != text.data() + text.size() || n == 0) {
    throw UsageError("--top needs a positive integer, not \"" + text + "\"");
  }
  return n;
}

double number_option(const std::string& name, const std::string& text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) {
    throw UsageError(name + " needs a number, not \"" + text + "\"");
  }
  return v;
}

model::Profile read_trace_run(const std::filesystem::path& dir, TraceFile trace_file) {
  auto profile = model::read_profile(dir);
  if (!profile.trace) throw UsageError(dir.string() + " is not a trace run (mpidle run --trace)");
  if (trace_file == TraceFile::checked) {
    // The head and the index only (the records are skipped): a truncated or damaged
    // file is refused in one line before any progress or warning line.
    (void)model::read_trace_ranks(dir / profile.trace->file,
                                  [](std::size_t, std::size_t) { return false; });
  }
  if (const auto lost = lost_records_text(profile); !lost.empty()) {
    std::fprintf(stderr, "mpidle: warning: %s\n", lost.c_str());
  }
  return profile;
}

bool wants_help(const Command& command, Args args) {
  for (const auto& a : args) {
    if (a == "--") break;
    if (a == "-h" || a == "--help") {
      std::printf("usage: %s\n", command.synopsis);
      return true;
    }
  }
  return false;
}

}  // namespace mpidle::report
