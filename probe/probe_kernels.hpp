#pragma once

#include <string>
// The two fixed compute kernels of a machine model (docs/prediction.md): their
// times on two machines compare the machines' CPUs for compute bursts.

namespace mpidle::probe {

// A kernel's time: the best of its rounds. Interference only ever slows a round,
// so the best is the machine's; rounds go on until the two best agree within
// kKernelAgreement (or the rounds run out), so that no single disturbed or lucky
// round sets it. `spread`: (second best - best) / best.
struct KernelTime {
  double seconds = 0;
  double spread = 0;
  int rounds = 0;
};
inline constexpr double kKernelAgreement = 0.01;

// A triad a[i] = b[i] + s·c[i] over three 16 MiB arrays of doubles, 8 passes:
// bound by memory bandwidth.
KernelTime memory_bound_kernel(int max_rounds);

// 2·10^8 dependent multiply-adds on doubles: bound by the core's floating-point
// latency and clock.
KernelTime compute_bound_kernel(int max_rounds);

// The CPU's model name (/proc/cpuinfo's "model name"; empty where there is none):
// two probes of one host and CPU model compute alike (docs/prediction.md).
std::string cpu_model_name();

}  // namespace mpidle::probe
