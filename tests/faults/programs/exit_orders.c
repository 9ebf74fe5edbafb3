/* MPI_Finalize after main has returned, in the order argv[1] names:
 *   destructor     a destructor function of the executable
 *   library        a destructor function of a shared library (exit_step.c)
 *   atexit-before  an atexit handler registered before MPI_Init
 *   atexit-after   an atexit handler registered after MPI_Init
 *   thread         an atexit handler registered before MPI_Init starts a thread
 *                  that finalizes, and joins it (MPI_THREAD_MULTIPLE)
 * main makes kMainAllreduces Allreduce and returns 0; the exit step makes one more
 * before MPI_Finalize. Rank 0 prints one line in main and one in the exit step. */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exit_step.h"

static const char* g_order = "";

static void* finalizing_thread(void* arg) {
  (void)arg;
  exit_step("another thread");
  return NULL;
}

static void finalize_at_exit(void) {
  if (strcmp(g_order, "thread") == 0) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, finalizing_thread, NULL) == 0) pthread_join(thread, NULL);
  } else {
    exit_step(g_order);
  }
}

__attribute__((destructor)) static void at_unload(void) {
  if (strcmp(g_order, "destructor") == 0) exit_step("executable destructor");
}

int main(int argc, char** argv) {
  g_order = argc > 1 ? argv[1] : "destructor";
  if (strcmp(g_order, "atexit-before") == 0 || strcmp(g_order, "thread") == 0) {
    atexit(finalize_at_exit);
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (strcmp(g_order, "atexit-after") == 0) atexit(finalize_at_exit);
  if (strcmp(g_order, "library") == 0) finalize_when_unloaded();
  main_steps(g_order, provided);
  return 0;
}
