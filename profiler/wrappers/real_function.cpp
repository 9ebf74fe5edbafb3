#include "profiler/wrappers/real_function.hpp"

#include <dlfcn.h>
#include <mpi.h>

#include "profiler/core/log.hpp"

namespace mpidle::profiler {

void* find_next_symbol(const char* name) {
  // Loaded by the preload shim (libmpidle-preload.so) at the first MPI call rather
  // than preloaded, libmpidle is not in the process' global scope, where
  // RTLD_NEXT would search after it: the shim finds the MPI library's functions.
  using Finder = void* (*)(const char*);
  static const auto shim =
      reinterpret_cast<Finder>(dlsym(RTLD_DEFAULT, "mpidle_preload_next_symbol"));
  return shim ? shim(name) : dlsym(RTLD_NEXT, name);
}

int missing_function(const char* name) {
  warn(std::string("the MPI library has no ") + name +
       "; is libmpidle.so loaded into an MPI program?");
  return MPI_ERR_INTERN;
}

}  // namespace mpidle::profiler
