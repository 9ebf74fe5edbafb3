#pragma once
// The HTML report's POP efficiency table: each metric with a colour from red (0.5 and
// below) through yellow to green (1), as POP's reports colour them.

#include <string>

#include "model/pop_metrics.hpp"

namespace mpidle::report {

std::string efficiency_section(const model::PopEfficiency& e);

}  // namespace mpidle::report
