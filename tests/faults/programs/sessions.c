/* MPI-4 sessions, in the way argv[1] names (100 Allreduce on each communicator):
 *   one     MPI_Session_init, a communicator from the group of "mpi://WORLD",
 *           the Allreduce, MPI_Session_finalize
 *   two     two sessions at once, a communicator from each; the first session
 *           ends before the second's Allreduce
 *   init-first     MPI_Init, then a session; MPI_Session_finalize, then MPI_Finalize
 *   session-first  a session, then MPI_Init; MPI_Finalize, then MPI_Session_finalize
 * Rank 0 prints one line with the sums. With an MPI older than 4.0 (no sessions)
 * it prints {"skipped": ...} and does nothing else. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { kAllreduces = 100 };

#if MPI_VERSION >= 4
typedef struct {
  MPI_Session session;
  MPI_Comm comm;
} SessionWorld;

static SessionWorld open_world(const char* tag) {
  SessionWorld w = {MPI_SESSION_NULL, MPI_COMM_NULL};
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &w.session);
  MPI_Group_from_session_pset(w.session, "mpi://WORLD", &group);
  MPI_Comm_create_from_group(group, tag, MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &w.comm);
  MPI_Group_free(&group);
  return w;
}

static void close_world(SessionWorld* w) {
  MPI_Comm_free(&w->comm);
  MPI_Session_finalize(&w->session);
}

static double reduce_on(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  double x = rank + 1, sum = 0;
  for (int i = 0; i < kAllreduces; ++i) MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sum;
}

static int rank_in(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "one";
  if (strcmp(how, "one") == 0) {
    SessionWorld w = open_world("org.mpidle.test.one");
    const double sum = reduce_on(w.comm);
    if (rank_in(w.comm) == 0) printf("one session, sum %.1f\n", sum);
    close_world(&w);
  } else if (strcmp(how, "two") == 0) {
    SessionWorld a = open_world("org.mpidle.test.a");
    SessionWorld b = open_world("org.mpidle.test.b");
    const double sum_a = reduce_on(a.comm);
    const int rank = rank_in(a.comm);
    close_world(&a);
    const double sum_b = reduce_on(b.comm);
    if (rank == 0) printf("two sessions, sums %.1f %.1f\n", sum_a, sum_b);
    close_world(&b);
  } else if (strcmp(how, "init-first") == 0) {
    MPI_Init(&argc, &argv);
    SessionWorld w = open_world("org.mpidle.test.init-first");
    const double sum_session = reduce_on(w.comm);
    const double sum_world = reduce_on(MPI_COMM_WORLD);
    const int rank = rank_in(MPI_COMM_WORLD);
    close_world(&w);
    if (rank == 0) printf("MPI_Init first, sums %.1f %.1f\n", sum_session, sum_world);
    MPI_Finalize();
  } else if (strcmp(how, "session-first") == 0) {
    SessionWorld w = open_world("org.mpidle.test.session-first");
    MPI_Init(&argc, &argv);
    const double sum_world = reduce_on(MPI_COMM_WORLD);
    MPI_Finalize();
    const double sum_session = reduce_on(w.comm);
    if (rank_in(w.comm) == 0) printf("session first, sums %.1f %.1f\n", sum_session, sum_world);
    close_world(&w);
  } else {
    fprintf(stderr, "sessions: unknown way '%s'\n", how);
    return 2;
  }
  return 0;
}
#else
int main(void) {
  printf("{\"skipped\": \"this MPI has no sessions (MPI %d.%d)\"}\n", MPI_VERSION, MPI_SUBVERSION);
  return 0;
}
#endif
