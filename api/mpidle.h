/* mpidle's code regions for C and C++ (docs/regions.md).
 *
 *   #include <mpidle.h>
 *   mpidle_region_begin("solve");
 *   ...
 *   mpidle_region_end("solve");
 *
 * Regions nest; profile.json and the reports give each one its MPI time, wait and
 * POP efficiencies. This header is all a program needs to build: it runs the same
 * with or without mpidle. When libmpidle is loaded (`mpidle run`, LD_PRELOAD, or
 * linked in) the calls reach it; otherwise they do nothing. The first call looks
 * libmpidle's entry points up once (dlsym; on glibc before 2.34 link with -ldl);
 * every later call is one indirect call, or none without mpidle. Names are cut at
 * 64 bytes, and '/' in a name becomes '_'. */
#ifndef MPIDLE_H
#define MPIDLE_H

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*mpidle_region_fn_)(const char*);

/* libmpidle's entry point 0 (begin) or 1 (end), or null when it is not loaded. */
static inline mpidle_region_fn_ mpidle_region_entry_(int which) {
  static mpidle_region_fn_ entries[2];
  static int looked_up;
  if (!__atomic_load_n(&looked_up, __ATOMIC_ACQUIRE)) {
    /* The global scope: the program and every library loaded with it, LD_PRELOAD's
       included. */
    void* global = dlopen(NULL, RTLD_LAZY);
    const char* names[2] = {"mpidle_region_begin", "mpidle_region_end"};
    int i;
    for (i = 0; i < 2; ++i) {
      void* symbol = global != NULL ? dlsym(global, names[i]) : NULL;
      mpidle_region_fn_ f;
      memcpy(&f, &symbol, sizeof f);
      __atomic_store_n(&entries[i], f, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&looked_up, 1, __ATOMIC_RELEASE);
  }
  return __atomic_load_n(&entries[which], __ATOMIC_RELAXED);
}

/* Opens region `name` inside the thread's innermost open region. */
static inline void mpidle_region_begin(const char* name) {
  mpidle_region_fn_ f = mpidle_region_entry_(0);
  if (f != NULL) f(name);
}

/* Closes the innermost open region called `name` (and any left open inside it). */
static inline void mpidle_region_end(const char* name) {
  mpidle_region_fn_ f = mpidle_region_entry_(1);
  if (f != NULL) f(name);
}

#ifdef __cplusplus
}
#endif

#endif /* MPIDLE_H */
