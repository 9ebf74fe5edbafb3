#pragma once
// The code of the MPI library's own modules (its C library and its Fortran
// bindings, whichever MPI), as address ranges. A call whose return address lies
// there was made by the MPI library on the application's behalf (a Fortran
// binding calling the C function), so its callsite is the first frame outside.

#include <array>
#include <cstddef>
#include <cstdint>

namespace mpidle::profiler {

class CodeRanges {
 public:
  static constexpr std::size_t kMax = 32;

  // The executable segments of every loaded module that defines an MPI profiling
  // symbol (PMPI_ in any of the C and Fortran name forms the standard's bindings
  // use), except mpidle itself. Modules loaded later are not seen.
  static CodeRanges of_mpi_library();
  // The executable segments of every loaded module, the main program and mpidle
  // excepted, for which `keep(path, handle, base)` holds (`handle` from dlopen
  // RTLD_NOLOAD, `base` the module's load address).
  static CodeRanges of_modules_where(bool (*keep)(const char* path, void* handle,
                                                  std::uintptr_t base));

  // Whether `name`, looked up from `handle` (whose search also reaches the module's
  // dependencies), is the module's own: defined in the module loaded at `base`.
  static bool defines(void* handle, const char* name, std::uintptr_t base);

  bool add(std::uintptr_t begin, std::uintptr_t end) {
    if (m_count == kMax) return false;
    m_ranges[m_count++] = {begin, end};
    return true;
  }
  bool contains(std::uintptr_t address) const {
    for (std::size_t i = 0; i < m_count; ++i) {
      if (address >= m_ranges[i].begin && address < m_ranges[i].end) return true;
    }
    return false;
  }
  bool empty() const { return m_count == 0; }
  std::size_t size() const { return m_count; }

 private:
  struct Range {
    std::uintptr_t begin = 0, end = 0;
  };
  std::array<Range, kMax> m_ranges{};
  std::size_t m_count = 0;
};

}  // namespace mpidle::profiler
