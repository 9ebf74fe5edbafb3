#pragma once
// What this build tree made and runs the tests with. Only build_paths.cpp gets them
// as compile definitions: the other test files then compile alike in the MPICH and
// the Open MPI tree, and `make test` compiles them once (ccache).

namespace build_tree {

extern const char* const mpiexec;
extern const char* const netpipe;  // NetPIPE built for this tree's MPI
extern const char* const mpidle_lib;
extern const char* const mpidle_preload_lib;  // empty where the shim is not built
extern const char* const mpidle_spank_lib;    // empty without Slurm's header
extern const char* const mpidle_bin;
extern const char* const mpidle_replay_bin;
extern const char* const delay_lib;
extern const char* const window_fault_lib;  // tests/programs/window_fault.c
extern const bool have_fortran;

}  // namespace build_tree
