#pragma once
// Everything the generated wrappers (build/profiler/wrappers.cpp) refer to.

#include <mpi.h>

#include <cstdarg>
#include <cstdint>

#include "profiler/wrappers/call.hpp"
#include "profiler/wrappers/call_scope.hpp"
#include "profiler/wrappers/hooks.hpp"
#include "profiler/wrappers/mpi_handles.hpp"
#include "profiler/wrappers/real_function.hpp"

#define MPIDLE_EXPORT __attribute__((visibility("default")))
