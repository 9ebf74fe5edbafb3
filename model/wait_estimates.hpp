#pragma once
// How much of a call's time was waiting, by each of mpidle's estimates; added up
// per rank, callsite, function and region. No MPI.

namespace mpidle::model {

// The wait estimates (docs/profile-format.md, "Two wait estimates"): `wait_s` is the
// default, time above the robust baseline of calls that can wait, less the transfer
// that completion calls held (`transfer_s`, estimated from the blocking
// point-to-point calls of the same message size); `wait_or_transfer_s` is the part
// of `wait_s` in completion calls whose transfer no such call tells;
// `variation_s` is time above the baseline of local calls (Comm_rank, Isend,
// Test*, ...), which cannot wait; `wait_s_minimum` is the minimum method against
// the rank's own minima (the published method), `wait_s_global_min` against the
// minima over all ranks; `wait_s_calibrated` is time above the baseline that trace
// windows calibrated, for keys that have one, and `wait_s` for the others
// (docs/calibration.md).
struct WaitEstimates {
  double wait_s = 0, variation_s = 0, transfer_s = 0, wait_or_transfer_s = 0;
  double wait_s_minimum = 0, wait_s_global_min = 0, wait_s_calibrated = 0;
  void add(const WaitEstimates& o) {
    wait_s += o.wait_s;
    wait_s_calibrated += o.wait_s_calibrated;
    variation_s += o.variation_s;
    transfer_s += o.transfer_s;
    wait_or_transfer_s += o.wait_or_transfer_s;
    wait_s_minimum += o.wait_s_minimum;
    wait_s_global_min += o.wait_s_global_min;
  }
};

}  // namespace mpidle::model
