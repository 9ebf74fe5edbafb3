#pragma once
// The compact per-job record (job.json) beside a run's profile.json: what the fleet
// database keeps of a run. Its size is bounded whatever the rank count: totals,
// extremes over ranks, the top functions and callsites, never a per-rank array.
// No MPI.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace mpidle::fleet {

inline constexpr const char* kJobRecordSchema = "mpidle-job/1";
inline constexpr const char* kJobRecordFile = "job.json";
inline constexpr std::size_t kJobRecordFunctions = 16;
inline constexpr std::size_t kJobRecordCallsites = 10;

// The record of a profile.json document (as written, or as read back). The job
// section may be missing (profiles from before it existed): the record then has
// what the run section says. Throws std::runtime_error on a document that is
// not an mpidle profile.
nlohmann::json job_record(const nlohmann::json& profile);

}  // namespace mpidle::fleet
