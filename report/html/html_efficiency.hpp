#pragma once
// The HTML report's POP efficiency table: each metric with a colour from red (0.5 and
// below) through yellow to green (1), as POP's reports colour them.

#include <string>

#include "model/pop_metrics.hpp"
#include "model/profile_reader.hpp"

namespace mpidle::report {

std::string efficiency_section(const model::PopEfficiency& e);
// The code regions, nested, with their MPI time, wait (`wait_s` per region, the
// report's estimate) and POP metrics in the same colours; empty without regions.
std::string regions_section(const std::vector<model::RegionRow>& regions,
                            const std::vector<double>& wait_s);

}  // namespace mpidle::report
