/* The last MPI a program does when it finalizes at exit (exit_step.c, a shared
 * library): one more Allreduce, rank 0's line, MPI_Finalize. */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif

/* Allreduce calls main makes before it returns; exit_step adds one. */
enum { kMainAllreduces = 10 };

void exit_step(const char* where);
/* Arms the library's destructor function to call exit_step("library destructor"). */
void finalize_when_unloaded(void);

#ifdef __cplusplus
}
#endif
