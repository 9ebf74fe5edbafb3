/* Reads the Python interpreter's frames of the calling thread by the layout of
 * the CPython version mpidle was built against (python_layout.c), without the GIL
 * and without calling into Python: the MPI wrappers run while mpi4py has released
 * the GIL, and must never take it. C, because CPython's internal headers are. */
#ifndef MPIDLE_PYTHON_LAYOUT_H
#define MPIDLE_PYTHON_LAYOUT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One Python frame: its code object and the offset of its current instruction. */
struct mpidle_python_frame {
  const void* code;
  int offset; /* bytes into the code, as PyCode_Addr2Line takes it */
};

/* "3.11" when this build can read that version's frames, else NULL. */
const char* mpidle_python_layout_version(void);

/* The innermost frames (at most `max`) of `thread_state` (a PyThreadState*),
 * innermost first; frames not yet started are skipped. Returns how many. */
int mpidle_python_stack(const void* thread_state, struct mpidle_python_frame* out, int max);

/* A code object's file name and function name, as UTF-8, cut to fit. */
void mpidle_python_code_names(const void* code, char* file, size_t file_size, char* function,
                              size_t function_size);

#ifdef __cplusplus
}
#endif

#endif
