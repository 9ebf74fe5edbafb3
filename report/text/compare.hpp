#pragma once
// Two runs of the same application side by side (two clusters, or two
// configurations): per function and per callsite, time, wait and processing
// (time − wait), with ratios B / A, and for every callsite what dominates it:
// waiting (imbalance), latency (small messages) or bandwidth (large messages);
// for the program, how computation compares. Callsites are matched by source
// location, not by address, so two builds of one program still match.

#include <optional>
#include <string>
#include <vector>

#include "analysis/callsite_verdict.hpp"
#include "model/profile_reader.hpp"
#include "report/runs/run_analysis.hpp"
#include "report/text/text_report.hpp"

namespace mpidle::report {

struct Pair {
  double a = 0, b = 0;
  // b / a; 0 when both are 0, infinity when only a is.
  double ratio() const;
};

using analysis::Dominant;
using analysis::dominant_advice;
using analysis::dominant_name;
using analysis::kLatencyBoundBytes;

struct SiteComparison {
  std::string function;
  std::string location;  // "file.c:42 (main)": the matching key, with function
  bool in_a = false, in_b = false;
  Pair visits, time, wait, processing, bytes_per_visit;
  Pair wait_or_transfer;  // the part of wait that may be transfer (no trace, no estimate)
  Dominant dominant = Dominant::latency;  // in the run where the callsite takes longer
  // Where the trace's root causes put it: the computation's place and ranks
  // (waiting), the communication's (waiting_for_communication), or the callsite the
  // waiting was propagated from (waiting_propagated); empty without root causes.
  std::string caused_at;
  bool changed_most = false;  // the largest |time B − time A| of all callsites
};

struct FunctionComparison {
  std::string name;
  Pair calls, time, wait, processing;
};

// POP's efficiency table of two runs of one problem, A the reference (strong
// scaling): each run's efficiencies, and B's computation scalability, Σ useful time
// of A / Σ useful time of B (1 for A). Global efficiency = parallel × computation
// scalability.
// Where PAPI counted PAPI_TOT_INS and PAPI_TOT_CYC in both runs' compute bursts
// (trace mode), computation scalability splits as POP's does: instruction
// scalability, Σ instructions of A / Σ instructions of B, and IPC scalability,
// IPC of B / IPC of A.
struct PopRow {
  model::PopEfficiency efficiency;
  double computation_scalability = 1;
  std::optional<double> instruction_scalability, ipc_scalability;
  double global() const { return efficiency.parallel * computation_scalability; }
};

struct Comparison {
  std::string label_a, label_b;              // executable and arguments
  std::vector<std::string> caveats;          // mismatches, said plainly
  std::string wait_source_a, wait_source_b;  // "trace analysis" or "<estimate> estimate"
  Pair ranks, wall, mpi, wait, compute;      // per run: sums over ranks
  Pair wait_or_transfer;                     // the part of wait that may be transfer
  PopRow pop_a, pop_b;
  std::string counters_missing;  // why there is no instruction and IPC scalability
  // Each run's waiting by root cause, where its trace analysis has them.
  std::optional<analysis::WaitCauses> causes_a, causes_b;
  std::vector<FunctionComparison> functions;  // by |Δtime|
  std::vector<SiteComparison> callsites;      // by |Δtime|
};

// Where a run has its exact wait (run_analysis.hpp), the comparison takes its wait
// from there instead of from an estimate: transfer then counts as processing, exactly.
Comparison compare_profiles(const model::Profile& a, const model::Profile& b, Estimate estimate,
                            const ExactWaits* exact_a = nullptr,
                            const ExactWaits* exact_b = nullptr);
std::string format_comparison(const Comparison& c, std::size_t top);
// The POP table alone, as format_comparison prints it.
std::string format_pop_table(const Comparison& c);

}  // namespace mpidle::report
