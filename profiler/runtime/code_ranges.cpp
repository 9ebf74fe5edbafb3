#include "profiler/runtime/code_ranges.hpp"

#include <dlfcn.h>
#include <link.h>

#include <string>
#include <vector>

namespace mpidle::profiler {
namespace {

struct LoadedModule {
  std::string path;
  std::uintptr_t base = 0;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> code;  // executable segments
};

int collect(dl_phdr_info* info, std::size_t, void* out) {
  auto& modules = *static_cast<std::vector<LoadedModule>*>(out);
  LoadedModule m;
  m.path = info->dlpi_name ? info->dlpi_name : "";
  m.base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
      const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
      m.code.emplace_back(begin, begin + ph.p_memsz);
    }
  }
  modules.push_back(std::move(m));
  return 0;
}

// Names of one profiling entry point in the forms MPI's C and Fortran bindings
// export (the standard's name-mangling conventions, not one library's file names).
constexpr const char* kMarkers[] = {
    "PMPI_Send",       "pmpi_send",     "pmpi_send_",     "pmpi_send__",
    "PMPI_SEND",       "pmpi_send_f08", "pmpi_send_f08_", "pmpi_send_f08ts_",
    "mpi_send_f08ts_", "MPI_Send_f08",  "PMPI_Send_f08",  "pmpi_comm_rank_",
};

bool defines_mpi_symbol(const char*, void* handle, std::uintptr_t base) {
  for (const char* name : kMarkers) {
    if (CodeRanges::defines(handle, name, base)) return true;
  }
  return false;
}

}  // namespace

bool CodeRanges::defines(void* handle, const char* name, std::uintptr_t base) {
  void* symbol = dlsym(handle, name);
  Dl_info where{};
  return symbol != nullptr && dladdr(symbol, &where) != 0 &&
         reinterpret_cast<std::uintptr_t>(where.dli_fbase) == base;
}

CodeRanges CodeRanges::of_mpi_library() {
  return of_modules_where(defines_mpi_symbol);
}

CodeRanges CodeRanges::of_modules_where(bool (*keep)(const char*, void*, std::uintptr_t)) {
  std::vector<LoadedModule> modules;
  dl_iterate_phdr(collect, &modules);  // dlopen may not run inside the iteration
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&CodeRanges::of_mpi_library), &self);
  const auto own_base = reinterpret_cast<std::uintptr_t>(self.dli_fbase);
  CodeRanges ranges;
  for (const auto& m : modules) {
    // The main program (no name) is the application's; mpidle exports PMPI_ too.
    if (m.path.empty() || m.base == own_base) continue;
    void* handle = dlopen(m.path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    const bool kept = keep(m.path.c_str(), handle, m.base);
    dlclose(handle);
    if (!kept) continue;
    for (const auto& [begin, end] : m.code) ranges.add(begin, end);
  }
  return ranges;
}

}  // namespace mpidle::profiler
