/* mpidle's code regions for Fortran (docs/regions.md), in libmpidle_regions.a:
 *
 *   call mpidle_region_begin('solve')
 *   ...
 *   call mpidle_region_end('solve')
 *
 * Link the program with -lmpidle_regions; it then runs the same with or without
 * mpidle, as C programs do with mpidle.h. Fortran passes a character argument's
 * length after the other arguments (a size_t in gfortran 8 and later, ifx and
 * flang), and pads it with blanks, which are dropped here. */
#include <stddef.h>
#include <string.h>

#include "mpidle.h"

/* At most 64 bytes reach mpidle (mpidle.h), one more keeps the terminating 0. */
enum { kRegionName = 65 };

static void fortran_name(char* out, const char* name, size_t length) {
  size_t n = length < kRegionName - 1 ? length : kRegionName - 1;
  while (n > 0 && name[n - 1] == ' ') --n;
  memcpy(out, name, n);
  out[n] = '\0';
}

void mpidle_region_begin_(const char* name, size_t length) {
  char text[kRegionName];
  fortran_name(text, name, length);
  mpidle_region_begin(text);
}

void mpidle_region_end_(const char* name, size_t length) {
  char text[kRegionName];
  fortran_name(text, name, length);
  mpidle_region_end(text);
}
