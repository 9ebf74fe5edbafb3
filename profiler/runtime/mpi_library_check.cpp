#include "profiler/runtime/mpi_library_check.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "profiler/core/log.hpp"
#include "profiler/wrappers/real_function.hpp"

namespace mpidle::profiler {
namespace {

struct Provider {
  const void* base;
  std::string file;
};

// The loaded object that holds `address`.
std::optional<Provider> provider_at(void* address) {
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0) return std::nullopt;
  return Provider{info.dli_fbase, info.dli_fname ? info.dli_fname : "?"};
}

// The loaded object that defines `symbol` as seen from `handle`'s scope.
std::optional<Provider> provider_of(void* handle, const char* symbol) {
  return provider_at(dlsym(handle, symbol));
}

int collect_object_name(dl_phdr_info* info, std::size_t, void* out) {
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
    static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
  }
  return 0;
}

}  // namespace

std::optional<std::string> foreign_mpi_library() {
  const auto program_mpi = provider_at(find_next_symbol("PMPI_Init"));
  Dl_info self{};
  if (!program_mpi || dladdr(reinterpret_cast<void*>(&foreign_mpi_library), &self) == 0) {
    return std::nullopt;
  }
  // The preload shim defines every MPI name too, as trampolines: not an MPI library.
  const auto shim = provider_of(RTLD_DEFAULT, "mpidle_preload_next_symbol");
  std::vector<std::string> objects;
  dl_iterate_phdr(collect_object_name, &objects);
  for (const std::string& name : objects) {
    // RTLD_NOLOAD: only a reference to what is loaded already, never a new load.
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    const auto other = provider_of(handle, "PMPI_Init");
    dlclose(handle);
    if (other && other->base != self.dli_fbase && other->base != program_mpi->base &&
        !(shim && other->base == shim->base)) {
      return "the program runs on the MPI library " + program_mpi->file +
             ", but this libmpidle was built for " + MPIDLE_BUILT_FOR_MPI + " (" + other->file +
             "): not profiling this run; use an mpidle built for the program's MPI";
    }
  }
  return std::nullopt;
}

namespace {

// LD_PRELOAD without the entries that are this library (by its real path).
std::string preload_without(std::string_view preload, const std::string& self_path) {
  std::string kept;
  std::size_t start = 0;
  while (start <= preload.size()) {
    std::size_t end = preload.find_first_of(": ", start);
    if (end == std::string_view::npos) end = preload.size();
    const std::string entry(preload.substr(start, end - start));
    char resolved[PATH_MAX];
    const bool is_self =
        !entry.empty() && realpath(entry.c_str(), resolved) != nullptr && self_path == resolved;
    if (!entry.empty() && !is_self) kept += (kept.empty() ? "" : ":") + entry;
    start = end + 1;
  }
  return kept;
}

// At load, before main and before any MPI call: a program of another MPI is
// started again without libmpidle, so that it runs exactly as it would bare.
// glibc passes argc, argv and envp to a shared library's constructors.
__attribute__((constructor)) void leave_programs_of_another_mpi(int, char** argv, char**) {
  // Only a preloaded libmpidle can leave: the scan of the loaded objects is not
  // done in processes that linked it.
  const char* preload = getenv("LD_PRELOAD");
  if (preload == nullptr || argv == nullptr) return;
  const auto foreign = foreign_mpi_library();
  Dl_info self{};
  if (!foreign || dladdr(reinterpret_cast<void*>(&leave_programs_of_another_mpi), &self) == 0) {
    return;
  }
  char self_path[PATH_MAX];
  if (realpath(self.dli_fname, self_path) == nullptr) return;
  const std::string kept = preload_without(preload, self_path);
  if (kept == preload) return;  // linked in, not preloaded: MPI_Init will pass through
  if (!launcher_says_not_first_rank()) warn(*foreign);
  if (kept.empty()) {
    unsetenv("LD_PRELOAD");
  } else {
    setenv("LD_PRELOAD", kept.c_str(), 1);
  }
  execv("/proc/self/exe", argv);
  warn("could not start the program again without libmpidle; it may fail");
}

}  // namespace

bool launcher_says_not_first_rank() {
  for (const char* name : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return std::strcmp(value, "0") != 0;
  }
  return false;
}

}  // namespace mpidle::profiler
