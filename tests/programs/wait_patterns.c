/* Every wait-state pattern with the truth the program observes itself (the matrix
 * of tests/integration/test_wait_matrix.cpp, docs/calibration.md): per step, the
 * ranks line up (a Barrier; an Allreduce for the barrier pattern), one side computes
 * a delay, and the measured calls run. Every rank notes each measured call's enter
 * and exit and each message's send start and receive post on the node's monotonic
 * clock; rank 0 gathers them and applies Scalasca's definitions:
 *   late sender (a receive, or the call completing Irecvs, or a Probe): until the
 *     latest send start of the messages it completed, within the call;
 *   late receiver (a blocking send, or the Wait of an Isend): until its receive's
 *     post, where the send ended after that post (a send that ended before it
 *     did not wait);
 *   N x N and barrier: the last enter; broadcast: the root's enter; reduce (the
 *     root): the first sender's enter; scan: the latest enter of the lower ranks.
 *   --pattern late_sender --mode recv|wait|waitall|waitany|waitsome|test|sendrecv|
 *                                persistent|probe   (rank 0 sends, rank 1 receives)
 *   --pattern late_receiver --mode send|ssend|isend (rank 1 computes before its Recv)
 *   --pattern allreduce|barrier|bcast|reduce|scan
 *   --form systematic (5 ms every step) | varying (0-8 ms) | none (the waiting side
 *     computes 3 ms more, so nobody waits)   --bytes B   --steps N
 * Prints {"function", "truth_s" (the measured function's waiting, all ranks),
 * "cost_spread_s" (how much its calls' durations less their waiting vary:
 * example_spread), "calls", "time_s" (their durations, all ranks)}. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_support.h"

enum { kMaxCalls = 1 << 20 };

static const char* option(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

/* One measured call: its times, the step, and the messages it completed (or, for
 * a send, the message it sent); -1 for none. */
typedef struct {
  double enter, exit;
  int step, message[2];
} Call;

static Call* g_calls;
static int g_count;
static double *g_send_start, *g_post; /* by message: step * 2 + k */

static void note(double enter, double exit, int step, int m0, int m1) {
  if (g_count >= kMaxCalls) return;
  g_calls[g_count++] = (Call){enter, exit, step, {m0, m1}};
}

static const char* g_form;

static double delay(int step) {
  if (strcmp(g_form, "systematic") == 0) return 5e-3;
  if (strcmp(g_form, "varying") == 0) return 1e-3 * ((step * 7) % 9);
  return 0;
}
/* The function whose waiting the run measures. */
static const char* measured(const char* pattern, const char* mode) {
  static const char* const p2p[][2] = {
      {"recv", "MPI_Recv"},       {"probe", "MPI_Probe"},     {"sendrecv", "MPI_Sendrecv"},
      {"wait", "MPI_Wait"},       {"persistent", "MPI_Wait"}, {"test", "MPI_Test"},
      {"waitall", "MPI_Waitall"}, {"waitany", "MPI_Waitany"}, {"waitsome", "MPI_Waitsome"},
      {"send", "MPI_Send"},       {"ssend", "MPI_Ssend"},     {"isend", "MPI_Wait"}};
  static const char* const collectives[][2] = {{"allreduce", "MPI_Allreduce"},
                                               {"barrier", "MPI_Barrier"},
                                               {"bcast", "MPI_Bcast"},
                                               {"reduce", "MPI_Reduce"},
                                               {"scan", "MPI_Scan"}};
  for (size_t i = 0; i < sizeof collectives / sizeof collectives[0]; ++i)
    if (strcmp(pattern, collectives[i][0]) == 0) return collectives[i][1];
  for (size_t i = 0; i < sizeof p2p / sizeof p2p[0]; ++i)
    if (strcmp(mode, p2p[i][0]) == 0) return p2p[i][1];
  return NULL;
}

/* The waiting side's compute: none's lead, so that its partner is always first. */
static double lead(void) {
  return strcmp(g_form, "none") == 0 ? 3e-3 : 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* pattern = option(argc, argv, "--pattern", "late_sender");
  const char* mode = option(argc, argv, "--mode", "recv");
  g_form = option(argc, argv, "--form", "systematic");
  const int bytes = atoi(option(argc, argv, "--bytes", "8192"));
  int steps = atoi(option(argc, argv, "--steps", "40"));
  if (steps < 1) steps = 1;
  g_calls = calloc(kMaxCalls, sizeof(Call));
  g_send_start = calloc((size_t)steps * 2, sizeof(double));
  g_post = calloc((size_t)steps * 2, sizeof(double));
  const int half = bytes / 2 > 0 ? bytes / 2 : 1;
  char* out = calloc((size_t)bytes + 16, 1);
  char* in = calloc((size_t)bytes + 16, 1);
  const int count = bytes / 8 > 0 ? bytes / 8 : 1;
  double* sum_in = calloc((size_t)count, sizeof(double));
  double* sum_out = calloc((size_t)count, sizeof(double));
  const int p2p = strcmp(pattern, "late_sender") == 0 || strcmp(pattern, "late_receiver") == 0;
  const char* function = measured(pattern, mode);
  if (!function) {
    if (rank == 0) fprintf(stderr, "wait_patterns: unknown --pattern or --mode\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Request persistent = MPI_REQUEST_NULL;
  if (strcmp(pattern, "late_sender") == 0 && strcmp(mode, "persistent") == 0 && rank == 1)
    MPI_Recv_init(in, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &persistent);
  int flag = 0;
  for (int i = 0; i < steps && size >= 2; ++i) {
    if (strcmp(pattern, "barrier") == 0) {
      MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
    const int m0 = 2 * i, m1 = 2 * i + 1;
    if (p2p && rank > 1) continue;
    if (strcmp(pattern, "late_sender") == 0) {
      if (rank == 0) {
        example_busy_wait(delay(i));
        g_send_start[m0] = example_now();
        if (strcmp(mode, "sendrecv") == 0) {
          MPI_Sendrecv(out, bytes, MPI_BYTE, 1, 0, in, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
          note(g_send_start[m0], example_now(), i, m1, -1);
        } else if (strcmp(mode, "waitall") == 0 || strcmp(mode, "waitany") == 0 ||
                   strcmp(mode, "waitsome") == 0) {
          MPI_Send(out, half, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          g_send_start[m1] = example_now();
          MPI_Send(out, half, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        } else {
          MPI_Send(out, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        }
      } else {
        MPI_Request r[2];
        example_busy_wait(lead());
        if (strcmp(mode, "recv") == 0) {
          const double t = example_now();
          g_post[m0] = t;
          MPI_Recv(in, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          note(t, example_now(), i, m0, -1);
        } else if (strcmp(mode, "probe") == 0) {
          const double t = example_now();
          g_post[m0] = t;
          MPI_Probe(0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          note(t, example_now(), i, m0, -1);
          MPI_Recv(in, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (strcmp(mode, "sendrecv") == 0) {
          const double t = example_now();
          g_send_start[m1] = t;
          MPI_Sendrecv(out, bytes, MPI_BYTE, 0, 0, in, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
          note(t, example_now(), i, m0, -1);
        } else if (strcmp(mode, "wait") == 0 || strcmp(mode, "persistent") == 0 ||
                   strcmp(mode, "test") == 0) {
          g_post[m0] = example_now();
          if (strcmp(mode, "persistent") == 0) {
            MPI_Start(&persistent);
            r[0] = persistent;
          } else {
            MPI_Irecv(in, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &r[0]);
          }
          if (strcmp(mode, "test") == 0) {
            int done = 0;
            while (!done) {
              const double t = example_now();
              MPI_Test(&r[0], &done, MPI_STATUS_IGNORE);
              note(t, example_now(), i, done ? m0 : -1, -1);
            }
          } else {
            const double t = example_now();
            MPI_Wait(strcmp(mode, "persistent") == 0 ? &persistent : &r[0], MPI_STATUS_IGNORE);
            note(t, example_now(), i, m0, -1);
          }
        } else {
          g_post[m0] = example_now();
          MPI_Irecv(in, half, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &r[0]);
          g_post[m1] = example_now();
          MPI_Irecv(in + half, half, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[1]);
          if (strcmp(mode, "waitall") == 0) {
            const double t = example_now();
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            note(t, example_now(), i, m0, m1);
          } else if (strcmp(mode, "waitany") == 0) {
            for (int k = 0; k < 2; ++k) {
              int which = 0;
              const double t = example_now();
              MPI_Waitany(2, r, &which, MPI_STATUS_IGNORE);
              note(t, example_now(), i, 2 * i + which, -1);
            }
          } else {
            int left = 2;
            while (left > 0) {
              int n = 0, which[2];
              const double t = example_now();
              MPI_Waitsome(2, r, &n, which, MPI_STATUSES_IGNORE);
              note(t, example_now(), i, n > 0 ? 2 * i + which[0] : -1,
                   n > 1 ? 2 * i + which[1] : -1);
              left -= n;
            }
          }
        }
      }
    } else if (strcmp(pattern, "late_receiver") == 0) {
      if (rank == 0) {
        example_busy_wait(lead());
        const double t = example_now();
        g_send_start[m0] = t;
        if (strcmp(mode, "ssend") == 0) {
          MPI_Ssend(out, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          note(t, example_now(), i, m0, -1);
        } else if (strcmp(mode, "isend") == 0) {
          MPI_Request r;
          MPI_Isend(out, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &r);
          const double w = example_now();
          MPI_Wait(&r, MPI_STATUS_IGNORE);
          note(w, example_now(), i, m0, -1);
        } else {
          MPI_Send(out, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          note(t, example_now(), i, m0, -1);
        }
      } else {
        example_busy_wait(delay(i));
        g_post[m0] = example_now();
        MPI_Recv(in, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else {
      /* Collectives: who is late. allreduce, barrier, bcast, scan: rank 0 (the
       * root); reduce: every rank but the root, which waits. */
      const int late = strcmp(pattern, "reduce") == 0 ? rank != 0 : rank == 0;
      example_busy_wait(late ? delay(i) : lead());
      const double t = example_now();
      if (strcmp(pattern, "allreduce") == 0) {
        MPI_Allreduce(sum_in, sum_out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      } else if (strcmp(pattern, "barrier") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
      } else if (strcmp(pattern, "bcast") == 0) {
        MPI_Bcast(out, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
      } else if (strcmp(pattern, "reduce") == 0) {
        MPI_Reduce(sum_in, sum_out, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      } else {
        MPI_Scan(sum_in, sum_out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      }
      note(t, example_now(), i, -1, -1);
    }
  }
  if (persistent != MPI_REQUEST_NULL) MPI_Request_free(&persistent);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Rank 0 gathers every rank's calls and message times. */
  int* counts = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
  int* offsets = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
  const int mine = g_count * (int)sizeof(Call);
  MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; rank == 0 && r < size; ++r) {
    offsets[r] = total;
    total += counts[r];
  }
  char* calls = rank == 0 ? malloc((size_t)total + 1) : NULL;
  MPI_Gatherv(g_calls, mine, MPI_BYTE, calls, counts, offsets, MPI_BYTE, 0, MPI_COMM_WORLD);
  const int messages = 2 * steps;
  MPI_Allreduce(MPI_IN_PLACE, g_send_start, messages, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, g_post, messages, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    /* Per step, every rank's enter into the measured collective. */
    double* enters = calloc((size_t)steps * (size_t)size, sizeof(double));
    for (int r = 0; r < size; ++r) {
      const Call* c = (const Call*)(calls + offsets[r]);
      for (int k = 0; k < counts[r] / (int)sizeof(Call); ++k)
        enters[(size_t)c[k].step * (size_t)size + (size_t)r] = c[k].enter;
    }
    double truth = 0, time = 0;
    double* costs = malloc(sizeof(double) * ((size_t)total / sizeof(Call) + 1));
    int n = 0;
    for (int r = 0; r < size; ++r) {
      const Call* c = (const Call*)(calls + offsets[r]);
      for (int k = 0; k < counts[r] / (int)sizeof(Call); ++k) {
        const Call* x = &c[k];
        const double* step_enters = &enters[(size_t)x->step * (size_t)size];
        double until = -1;
        if (strcmp(pattern, "late_sender") == 0) {
          for (int j = 0; j < 2; ++j)
            if (x->message[j] >= 0 && g_send_start[x->message[j]] > until)
              until = g_send_start[x->message[j]];
        } else if (strcmp(pattern, "late_receiver") == 0) {
          const double post = g_post[x->message[0]];
          /* A send that ended before its receive was posted did not wait for it. */
          until = x->exit > post ? post : -1;
        } else if (strcmp(pattern, "bcast") == 0) {
          until = r == 0 ? -1 : step_enters[0];
        } else if (strcmp(pattern, "reduce") == 0) {
          for (int j = 1; r == 0 && j < size; ++j)
            if (until < 0 || step_enters[j] < until) until = step_enters[j];
        } else if (strcmp(pattern, "scan") == 0) {
          for (int j = 0; j < r; ++j)
            if (step_enters[j] > until) until = step_enters[j];
        } else {
          for (int j = 0; j < size; ++j)
            if (step_enters[j] > until) until = step_enters[j];
        }
        double waited = (until < x->exit ? until : x->exit) - x->enter;
        if (waited < 0) waited = 0;
        truth += waited;
        costs[n++] = x->exit - x->enter - waited;
        time += x->exit - x->enter;
      }
    }
    printf(
        "{\"function\": \"%s\", \"truth_s\": %.9f, \"cost_spread_s\": %.9f, \"calls\": %d, "
        "\"time_s\": %.9f}\n",
        function, truth, example_spread(costs, n), n, time);
    free(costs);
    free(enters);
  }
  free(counts);
  free(offsets);
  free(calls);
  free(g_calls);
  free(g_send_start);
  free(g_post);
  free(out);
  free(in);
  free(sum_in);
  free(sum_out);
  MPI_Finalize();
  return 0;
}
