#pragma once
// Names each callsite frame (function, file, line) once per unique frame, at
// finalize on rank 0, by running binutils' addr2line once per module.

#include <vector>

#include "model/profile_tables.hpp"

namespace mpidle::profiler {

// Fills function/file/line where debug information allows; returns false if
// addr2line could not be run (frames then keep what dladdr found).
bool symbolize(std::vector<model::Callsite>& callsites);

}  // namespace mpidle::profiler
