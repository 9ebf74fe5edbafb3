/* libmpidle-preload.so: what a centre puts in LD_PRELOAD for every job. It defines
 * the MPI and PMPI entry points as trampolines (gen_stubs.py) and links nothing
 * but libc, so a process that never calls MPI (a job script's ls, cp, python) pays
 * only for loading this small library. At a process' first MPI call it picks the
 * libmpidle build for the program's MPI (MPI_Get_library_version, which MPI allows
 * before MPI_Init), loads it, and points every trampoline at it; libmpidle then
 * finds the MPI library's own functions through mpidle_preload_next_symbol. One
 * shim serves MPICH and Open MPI programs alike. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern void* mpidle_preload_slots[];
extern const char* const mpidle_preload_names[];
extern const unsigned mpidle_preload_count;

/* The MPI library's definition of `name`, skipping the shim's own: libmpidle,
 * loaded with RTLD_LOCAL, is not in the process' global scope, so its own
 * dlsym(RTLD_NEXT) would not find it. */
__attribute__((visibility("default"))) void* mpidle_preload_next_symbol(const char* name) {
  return dlsym(RTLD_NEXT, name);
}

/* Only the first rank speaks (launchers say which one a process is). */
static int first_rank(void) {
  const char* names[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"};
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const char* v = getenv(names[i]);
    if (v && *v) return strcmp(v, "0") == 0;
  }
  return 1;
}

static int switched_off(void) {
  const char* v = getenv("MPIDLE_ENABLE");
  return v && (strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0 || strcasecmp(v, "false") == 0 ||
               strcasecmp(v, "off") == 0);
}

/* "mpich" or "openmpi" from the MPI library's version text, or NULL. */
static const char* mpi_family(void) {
  typedef int (*VersionFn)(char*, int*);
  VersionFn version = (VersionFn)dlsym(RTLD_NEXT, "MPI_Get_library_version");
  if (!version) return NULL;
  static char text[8192]; /* the largest MPI_MAX_LIBRARY_VERSION_STRING of the MPIs */
  int length = 0;
  if (version(text, &length) != 0) return NULL;
  text[sizeof text - 1] = '\0';
  if (strstr(text, "Open MPI")) return "openmpi";
  if (strstr(text, "MPICH") || strstr(text, "MVAPICH") || strstr(text, "Intel(R) MPI")) {
    return "mpich";
  }
  return NULL;
}

/* MPIDLE_LIBRARY_<FAMILY>, else libmpidle-<family>.so beside this library, else
 * libmpidle.so beside it (which passes a foreign MPI's program through itself). */
static void* open_profiler(void) {
  const char* family = mpi_family();
  char path[PATH_MAX];
  if (family) {
    snprintf(path, sizeof path, "MPIDLE_LIBRARY_%s",
             strcmp(family, "mpich") == 0 ? "MPICH" : "OPENMPI");
    const char* chosen = getenv(path);
    if (chosen && *chosen) {
      void* library = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
      if (library) return library;
      if (first_rank())
        fprintf(stderr, "mpidle: cannot load %s (%s); not profiled\n", chosen, dlerror());
      return NULL;
    }
  }
  Dl_info self;
  if (!dladdr((void*)&mpidle_preload_next_symbol, &self) || !self.dli_fname) return NULL;
  const char* slash = strrchr(self.dli_fname, '/');
  const int dir = slash ? (int)(slash - self.dli_fname) : 1;
  const char* base = slash ? self.dli_fname : ".";
  if (family) {
    snprintf(path, sizeof path, "%.*s/libmpidle-%s.so", dir, base, family);
    void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library) return library;
  }
  snprintf(path, sizeof path, "%.*s/libmpidle.so", dir, base);
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library && first_rank()) {
    fprintf(
        stderr,
        "mpidle: no libmpidle for this MPI (%s) beside %s (set MPIDLE_LIBRARY_%s); not profiled\n",
        family ? family : "not recognized", self.dli_fname,
        family && strcmp(family, "openmpi") == 0 ? "OPENMPI" : "MPICH");
  }
  return library;
}

/* A name neither libmpidle nor the MPI library defines (a program that looked it
 * up with dlsym): says so once, and fails as an MPI call does. */
static int missing_function(void) {
  static int said = 0;
  if (!said && first_rank())
    fprintf(stderr, "mpidle: this MPI library lacks a function the program called\n");
  said = 1;
  return 1;
}

static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void) {
  void* library = switched_off() ? NULL : open_profiler();
  for (unsigned i = 0; i < mpidle_preload_count; ++i) {
    void* target = library ? dlsym(library, mpidle_preload_names[i]) : NULL;
    if (!target) target = dlsym(RTLD_NEXT, mpidle_preload_names[i]);
    if (!target) target = (void*)&missing_function;
    __atomic_store_n(&mpidle_preload_slots[i], target, __ATOMIC_RELEASE);
  }
}

__attribute__((visibility("hidden"))) void* mpidle_preload_resolve(unsigned index) {
  pthread_once(&loaded, load);
  return __atomic_load_n(&mpidle_preload_slots[index], __ATOMIC_ACQUIRE);
}
