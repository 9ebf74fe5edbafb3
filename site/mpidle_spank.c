/* mpidle-spank.so: Slurm turns mpidle on for a job's tasks, as Darshan and XALT are
 * on for every job, without a change to any job script.
 *
 *   plugstack.conf:  optional /usr/local/lib/mpidle/mpidle-spank.so [default=profile]
 *                    [shim=PATH] [log_dir=PATH]
 *   srun --mpidle[=profile|trace|off] ...   (sbatch and salloc take it too)
 *
 * default= is the site's choice for every job step (off unless given); a user's
 * --mpidle overrides it for their job. In each task, after slurmstepd forked it and
 * before it runs the program, the preload shim goes first in LD_PRELOAD (trace:
 * MPIDLE_TRACE=1 too; log_dir: MPIDLE_LOG_DIR unless the job set its own). Without
 * shim=, the shim beside the plugin's own file (a build tree), else the installed
 * one; where it cannot be read, mpidle stays off and says so once, and --mpidle is
 * refused (slurm_spank_init_post_opt). Only the
 * task's environment changes: slurmstepd itself never loads mpidle. The shim
 * loads libmpidle only into processes that call MPI, so a non-MPI step pays what
 * the shim costs. docs/centre.md. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

SPANK_PLUGIN(mpidle, 1);

#ifndef MPIDLE_PRELOAD_LIBRARY
#define MPIDLE_PRELOAD_LIBRARY "libmpidle-preload.so"
#endif

enum mode { MODE_UNSET = -1, MODE_OFF, MODE_PROFILE, MODE_TRACE };

static int g_site_default = MODE_OFF; /* plugstack.conf's default= */
static int g_job_choice = MODE_UNSET; /* the job's --mpidle */
static char g_shim[4096] = MPIDLE_PRELOAD_LIBRARY;
static int g_shim_given = 0; /* plugstack.conf's shim= */
static int g_shim_errno = 0; /* why the shim cannot be read; 0: it can */
static char g_log_dir[4096] = "";

/* profile, trace or off (an option without a value: profile); -1 for anything else. */
static int mode_of(const char* text) {
  if (text == NULL || text[0] == '\0' || strcmp(text, "profile") == 0) return MODE_PROFILE;
  if (strcmp(text, "trace") == 0) return MODE_TRACE;
  if (strcmp(text, "off") == 0) return MODE_OFF;
  return -1;
}

static int on_option(int val, const char* optarg, int remote) {
  (void)val;
  (void)remote;
  const int mode = mode_of(optarg);
  if (mode < 0) {
    slurm_error("mpidle: --mpidle=%s: not profile, trace or off", optarg);
    return -1;
  }
  g_job_choice = mode;
  return 0;
}

struct spank_option spank_options[] = {
    {"mpidle", "[profile|trace|off]",
     "Profile the job's MPI programs with mpidle: profile (without a value), trace, or "
     "off where the site profiles every job",
     2, 0, on_option},
    SPANK_OPTIONS_TABLE_END};

/* Copies `value` into `into` (of `size`); 0 if it did not fit. */
static int copy_setting(char* into, size_t size, const char* value) {
  const size_t n = strlen(value);
  if (n == 0 || n >= size) return 0;
  memcpy(into, value, n + 1);
  return 1;
}

/* Without shim=: the shim beside this plugin's own file where there is one (a build
 * tree's lib/ holds both), else where the install put it. */
static void find_default_shim(void) {
  Dl_info self;
  if (dladdr((void*)&find_default_shim, &self) == 0 || self.dli_fname == NULL) return;
  const char* slash = strrchr(self.dli_fname, '/');
  const char* name = strrchr(MPIDLE_PRELOAD_LIBRARY, '/');
  if (slash == NULL) return;
  char beside[sizeof g_shim];
  const int n = snprintf(beside, sizeof beside, "%.*s/%s", (int)(slash - self.dli_fname),
                         self.dli_fname, name ? name + 1 : MPIDLE_PRELOAD_LIBRARY);
  if (n > 0 && (size_t)n < sizeof beside && access(beside, R_OK) == 0) {
    copy_setting(g_shim, sizeof g_shim, beside);
  }
}

int slurm_spank_init(spank_t sp, int ac, char** av) {
  for (int i = 0; i < ac; ++i) {
    const char* arg = av[i];
    int ok = 1;
    if (strncmp(arg, "default=", 8) == 0) {
      g_site_default = mode_of(arg + 8);
      ok = g_site_default >= 0 && arg[8] != '\0';
    } else if (strncmp(arg, "shim=", 5) == 0) {
      ok = g_shim_given = copy_setting(g_shim, sizeof g_shim, arg + 5);
    } else if (strncmp(arg, "log_dir=", 8) == 0) {
      ok = copy_setting(g_log_dir, sizeof g_log_dir, arg + 8);
    } else {
      ok = 0;
    }
    if (!ok) {
      slurm_error(
          "mpidle: plugstack.conf argument \"%s\": expected default=profile|trace|off, "
          "shim=PATH or log_dir=PATH",
          arg);
      return -1;
    }
  }
  if (!g_shim_given) find_default_shim();
  /* A shim that is not there would make every task's loader print an error and run
   * unprofiled: checked once here, said in slurm_spank_init_post_opt. */
  g_shim_errno = access(g_shim, R_OK) == 0 ? 0 : (errno ? errno : ENOENT);
  /* sbatch and salloc see only options registered so. */
  if (spank_context() == S_CTX_ALLOCATOR) {
    for (struct spank_option* o = spank_options; o->name != NULL; ++o) {
      if (spank_option_register(sp, o) != ESPANK_SUCCESS) return -1;
    }
  }
  return 0;
}

/* After the job's options: where mpidle would be on and the shim cannot be read,
 * one line (srun's and sbatch's stderr, which is the job's; slurmd's log in the
 * step), and mpidle stays off; a job that asked for mpidle is refused. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char** av) {
  (void)sp;
  (void)ac;
  (void)av;
  const int mode = g_job_choice != MODE_UNSET ? g_job_choice : g_site_default;
  if (g_shim_errno == 0 || mode == MODE_OFF) return 0;
  if (g_job_choice != MODE_UNSET) {
    slurm_error(
        "mpidle: --mpidle refused: the preload shim %s cannot be read (%s); the site's "
        "plugstack.conf names it (shim=PATH)",
        g_shim, strerror(g_shim_errno));
    return -1;
  }
  slurm_error("mpidle: the preload shim %s cannot be read (%s): mpidle is off for this job", g_shim,
              strerror(g_shim_errno));
  return 0;
}

/* In the task, after the fork and before its program runs. */
int slurm_spank_task_init(spank_t sp, int ac, char** av) {
  (void)ac;
  (void)av;
  const int mode = g_job_choice != MODE_UNSET ? g_job_choice : g_site_default;
  if (mode == MODE_OFF || g_shim_errno != 0) return 0;
  char preload[8192] = "";
  if (spank_getenv(sp, "LD_PRELOAD", preload, sizeof preload) != ESPANK_SUCCESS) preload[0] = '\0';
  if (strstr(preload, g_shim) == NULL) {
    char value[sizeof preload + sizeof g_shim + 1];
    snprintf(value, sizeof value, "%s%s%s", g_shim, preload[0] ? " " : "", preload);
    if (spank_setenv(sp, "LD_PRELOAD", value, 1) != ESPANK_SUCCESS) {
      slurm_error("mpidle: cannot set LD_PRELOAD for the task; it runs without mpidle");
      return 0;
    }
  }
  if (mode == MODE_TRACE) spank_setenv(sp, "MPIDLE_TRACE", "1", 1);
  if (g_log_dir[0] != '\0') spank_setenv(sp, "MPIDLE_LOG_DIR", g_log_dir, 0);
  return 0;
}
