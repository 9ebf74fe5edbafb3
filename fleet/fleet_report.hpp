#pragma once
// mpidle fleet report: what the jobs in the fleet database cost and where they
// waited, by application, user and account; the most wasteful jobs and callsites;
// the distribution of wait share; trends per day and week; and the applications
// whose wait share rose against their own history. One JSON document, which the
// text and HTML forms render. No MPI.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "database.hpp"

namespace mpidle::fleet {

struct ReportFilter {
  std::optional<std::int64_t> since, until;  // job start, seconds since the epoch (UTC)
  std::string user, account, application;
};

// Jobs whose wait share is this much above their application's history rose.
inline constexpr double kRiseShare = 0.05;
inline constexpr std::int64_t kRecentDays = 7;

nlohmann::json fleet_report(Database& db, const ReportFilter& filter);
std::string fleet_report_text(const nlohmann::json& report);

}  // namespace mpidle::fleet
