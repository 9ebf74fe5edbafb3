#include "probe_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
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

// Runs `round` (which returns its seconds) at least 3 times, until its two best
// agree within kKernelAgreement or `max_rounds` ran.
template <typename Round>
KernelTime best_agreeing(int max_rounds, Round round) {
  std::vector<double> times;
  KernelTime k;
  for (int r = 0; r < std::max(max_rounds, 3); ++r) {
    times.push_back(round());
    std::sort(times.begin(), times.end());
    k.seconds = times[0];
    k.spread = times.size() > 1 ? (times[1] - times[0]) / times[0] : 0;
    k.rounds = static_cast<int>(times.size());
    if (times.size() >= 3 && k.spread <= kKernelAgreement) break;
  }
  return k;
}

}  // namespace

KernelTime memory_bound_kernel(int max_rounds) {
  constexpr std::size_t n = (16u << 20) / sizeof(double);
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  return best_agreeing(max_rounds, [&] {
    const auto start = std::chrono::steady_clock::now();
    for (int pass = 0; pass < 8; ++pass) {
      const double s = 0.5 + pass;
      for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
      opaque(a.data());
    }
    const double took = seconds_since(start);
    g_sink = a[n / 2];
    return took;
  });
}

KernelTime compute_bound_kernel(int max_rounds) {
  return best_agreeing(max_rounds, [] {
    const auto start = std::chrono::steady_clock::now();
    double x = 1.0, factor = 0.999999999, step = 1e-9;
    opaque(&factor);
    opaque(&step);
    for (long i = 0; i < 200'000'000; ++i) {
      x = x * factor + step;
      asm volatile("" : "+x"(x));  // one dependent multiply-add per iteration, not vectorized
    }
    const double took = seconds_since(start);
    g_sink = x;
    return took;
  });
}

std::string cpu_model_name() {
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) break;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return {};
}

}  // namespace mpidle::probe
