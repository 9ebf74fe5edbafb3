#pragma once
// Names each callsite frame (function, file, line) once per unique frame, at
// finalize on rank 0, from the modules' DWARF with elfutils' libdw, in process.

#include <string>
#include <vector>

#include "model/profile_tables.hpp"

namespace mpidle::profiler {

// Fills function/file/line where debug information allows. Returns "" or, when
// some module could not be read at all, why (its frames keep what dladdr found).
std::string symbolize(std::vector<model::Callsite>& callsites);

}  // namespace mpidle::profiler
