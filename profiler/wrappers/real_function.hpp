#pragma once
// The MPI library's own entry point behind each wrapper, found with
// dlsym(RTLD_NEXT, "PMPI_…") on first use. Because mpidle interposes PMPI_ names
// too, calling PMPI_X directly would land in mpidle again.

#include <atomic>

namespace mpidle::profiler {

void* find_next_symbol(const char* name);
// Reports a missing MPI symbol once and returns an MPI error code.
int missing_function(const char* name);

template <typename Fn>
class RealFunction {
 public:
  constexpr explicit RealFunction(const char* name) : m_name(name) {}

  Fn get() {
    Fn fn = m_fn.load(std::memory_order_relaxed);
    if (__builtin_expect(fn != nullptr, 1)) return fn;
    fn = reinterpret_cast<Fn>(find_next_symbol(m_name));
    m_fn.store(fn, std::memory_order_relaxed);
    return fn;
  }

 private:
  const char* m_name;
  std::atomic<Fn> m_fn{nullptr};
};

}  // namespace mpidle::profiler

namespace mpidle::profiler {

// Calls an MPI function that mpidle does not wrap, without linking against the
// MPI library (so that non-MPI processes, like the launcher, can preload mpidle).
template <typename Fn, typename... Args>
int call_real(RealFunction<Fn>& fn, Args... args) {
  const Fn target = fn.get();
  return target ? target(args...) : missing_function("an MPI function");
}

}  // namespace mpidle::profiler
