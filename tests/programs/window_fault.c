/* Test only, never installed: a preload library that makes the last rank's trace
 * windows fail at MPI_Finalize, at the step WINDOW_FAULT_STEP names ("sends":
 * before telling its receivers of its sends; "pairs": after hearing its senders,
 * before answering them). libmpidle looks this function up by name at the
 * finalize (profiler/finalize/window_calibration.cpp); no MPIDLE_ setting or
 * mpidle.conf can make it fail. */
#include <stdlib.h>

const char* mpidle_test_window_fault(void) {
  return getenv("WINDOW_FAULT_STEP");
}
