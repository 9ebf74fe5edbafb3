#pragma once
// Everything the generated wrappers (build/profiler/wrappers.cpp) refer to.

#include <mpi.h>

#include <cstdarg>
#include <cstdint>

#include "call.hpp"
#include "call_scope.hpp"
#include "hooks.hpp"
#include "mpi_handles.hpp"
#include "real_function.hpp"

#define MPIDLE_EXPORT __attribute__((visibility("default")))
