// A C++ shared library holding a namespace-scope object whose destructor finalizes
// MPI when armed: a framework's MPI guard in a static (boost::mpi::environment and
// the like), built before main, destroyed when the library is unloaded at exit.
#include "exit_orders_library.hpp"

#include "exit_step.h"

namespace {

struct LibraryGuard {
  bool armed = false;
  ~LibraryGuard() {
    if (armed) exit_step("library static destructor");
  }
};

LibraryGuard g_guard;

}  // namespace

void finalize_when_library_guard_ends() {
  g_guard.armed = true;
}
