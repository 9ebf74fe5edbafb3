// MPI_Finalize after main has returned, in C++, in the order argv[1] names:
//   static         the destructor of a namespace-scope object of the executable
//   library        the destructor of a namespace-scope object of a shared library
//   atexit-before  a std::atexit handler registered before MPI_Init
//   atexit-after   a std::atexit handler registered after MPI_Init
//   thread         a namespace-scope object owns a std::thread that waits from
//                  MPI_Init on; its destructor wakes it to finalize, and joins it
//                  (MPI_THREAD_MULTIPLE)
// main makes kMainAllreduces Allreduce and returns 0; the exit step makes one more
// before MPI_Finalize. Rank 0 prints one line in main and one in the exit step.
#include <mpi.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "exit_orders_library.hpp"
#include "exit_step.h"

namespace {

std::string g_order;

struct StaticGuard {
  bool armed = false;
  ~StaticGuard() {
    if (armed) exit_step("executable static destructor");
  }
};
StaticGuard g_guard;

// The thread that will finalize, waiting from the start of the run.
struct FinalizingThread {
  std::mutex mutex;
  std::condition_variable wake;
  bool finish = false;
  std::thread thread;

  void start() {
    thread = std::thread([this] {
      std::unique_lock lock(mutex);
      wake.wait(lock, [this] { return finish; });
      exit_step("another thread");
    });
  }
  ~FinalizingThread() {
    if (!thread.joinable()) return;
    {
      std::lock_guard lock(mutex);
      finish = true;
    }
    wake.notify_one();
    thread.join();
  }
};
FinalizingThread g_finalizer;

void finalize_at_exit() {
  exit_step(g_order.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  g_order = argc > 1 ? argv[1] : "static";
  if (g_order == "atexit-before") std::atexit(finalize_at_exit);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (g_order == "atexit-after") std::atexit(finalize_at_exit);
  if (g_order == "static") g_guard.armed = true;
  if (g_order == "library") finalize_when_library_guard_ends();
  if (g_order == "thread") g_finalizer.start();
  main_steps(g_order.c_str(), provided);
  return 0;
}
