#include "probe_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace mpidle::probe {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Keeps the compiler from dropping a result nobody reads, or from computing the
// chain at compile time (GCC/Clang: the memory behind `p` may be read and written).
volatile double g_sink = 0;
inline void opaque(void* p) {
  asm volatile("" : : "r"(p) : "memory");
}

}  // namespace

double memory_bound_kernel_s() {
  constexpr std::size_t n = (16u << 20) / sizeof(double);
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int pass = 0; pass < 8; ++pass) {
      const double s = 0.5 + pass;
      for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
      opaque(a.data());
    }
    best = std::min(best, seconds_since(start));
    g_sink = a[n / 2];
  }
  return best;
}

double compute_bound_kernel_s() {
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    double x = 1.0, factor = 0.999999999, step = 1e-9;
    opaque(&factor);
    opaque(&step);
    for (long i = 0; i < 200'000'000; ++i) {
      x = x * factor + step;
      asm volatile("" : "+x"(x));  // one dependent multiply-add per iteration, not vectorized
    }
    best = std::min(best, seconds_since(start));
    g_sink = x;
  }
  return best;
}

}  // namespace mpidle::probe
