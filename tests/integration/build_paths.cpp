#include "build_paths.hpp"

namespace build_tree {

const char* const mpiexec = MPIEXEC;
const char* const netpipe = NETPIPE;
const char* const mpidle_lib = MPIDLE_LIB;
const char* const mpidle_preload_lib = MPIDLE_PRELOAD_LIB;
const char* const mpidle_spank_lib = MPIDLE_SPANK_LIB;
const char* const mpidle_bin = MPIDLE_BIN;
const char* const mpidle_replay_bin = MPIDLE_REPLAY_BIN;
const char* const delay_lib = DELAY_LIB;
const char* const window_fault_lib = WINDOW_FAULT_LIB;
const bool have_fortran = HAVE_FORTRAN;

}  // namespace build_tree
