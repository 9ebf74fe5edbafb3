/* The last MPI a program does when it finalizes at exit (exit_step.c, a shared
 * library): one more Allreduce, rank 0's line, MPI_Finalize. */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif

/* Allreduce calls main makes before it returns; exit_step adds one. */
enum { kMainAllreduces = 10 };

/* What main does between MPI_Init_thread and returning: kMainAllreduces Allreduce,
 * and rank 0's line naming the order and the thread level `provided`. */
void main_steps(const char* order, int provided);
void exit_step(const char* where);
/* Arms the library's destructor function to call exit_step("library destructor"). */
void finalize_when_unloaded(void);

#ifdef __cplusplus
}
#endif
