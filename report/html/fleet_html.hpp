#pragma once
// The fleet report as one self-contained HTML page: core-hours and waiting per
// application, user and account as bars, the wait-share histogram, daily and
// weekly trends as columns, and the tables of wasteful jobs, callsites and rising
// applications.

#include <string>

#include <nlohmann/json.hpp>

namespace mpidle::report {

std::string fleet_report_html(const nlohmann::json& report);

}  // namespace mpidle::report
