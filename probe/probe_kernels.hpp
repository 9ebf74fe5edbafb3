#pragma once
// The two fixed compute kernels of a machine model (docs/prediction.md): their
// times on two machines compare the machines' CPUs for compute bursts.

namespace mpidle::probe {

// Seconds of a triad a[i] = b[i] + s·c[i] over three 16 MiB arrays of doubles,
// 8 passes: bound by memory bandwidth. Best of 3.
double memory_bound_kernel_s();

// Seconds of 2·10^8 dependent multiply-adds on doubles: bound by the core's
// floating-point latency and clock. Best of 3.
double compute_bound_kernel_s();

}  // namespace mpidle::probe
