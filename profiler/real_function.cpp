#include "real_function.hpp"

#include <dlfcn.h>
#include <mpi.h>

#include "log.hpp"

namespace mpidle::profiler {

void* find_next_symbol(const char* name) {
  return dlsym(RTLD_NEXT, name);
}

int missing_function(const char* name) {
  warn(std::string("the MPI library has no ") + name +
       "; is libmpidle.so loaded into an MPI program?");
  return MPI_ERR_INTERN;
}

}  // namespace mpidle::profiler
