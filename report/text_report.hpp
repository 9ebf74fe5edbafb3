#pragma once
// The text forms of a profile: the full report and the five-line run summary.

#include <string>

#include "model/profile_reader.hpp"

namespace mpidle::report {

enum class Estimate { local, global };

struct ReportOptions {
  std::size_t top = 10;
  Estimate estimate = Estimate::local;
};

Estimate estimate_of(const model::Profile& profile);
std::string format_report(const model::Profile& profile, const ReportOptions& options);
std::string format_summary(const model::Profile& profile, const std::string& where);
// "file.c:42 (main)" where debug information exists, else "main+0x1a2 (app)".
std::string callsite_location(const model::CallsiteRow& callsite);

}  // namespace mpidle::report
